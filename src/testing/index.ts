// Public surface of src/testing/ (`svc/testing`): the test kit for controllers (docs/testing.md).
export { startTestCluster } from './test-cluster.js';
export type { TestApiServerOptions, TestCluster, TestClusterOptions, TestControllersOptions } from './test-cluster.js';
export { VirtualTime } from './virtual-time.js';
export { Recorder } from './recorder.js';
export type { RecorderOptions } from './recorder.js';
export { Replayer } from './replayer.js';
export type { ReplayedWrite, ReplayerOptions, ReplayReport } from './replayer.js';
export { ReplaySource } from './replay-source.js';
export type { ReplaySourceOptions } from './replay-source.js';
export { parseRecording, recordedResult, toNdjson } from './recording.js';
export type { CachedSource, EventLine, HeaderLine, RecordedResult, RecordedWrite, RecordingLine, ResultLine, WriteLine } from './recording.js';
export { WriteTap } from './write-tap.js';
export type { TappedWrite, WriteAnswerer, WriteInterleaver } from './write-tap.js';
