// Runs once before every suite: nothing shared yet. Suites start their own etcd and files.
export default function setup(): void {}
