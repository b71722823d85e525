// Public surface of src/listening/: how svc's many-client HTTPS servers (the API server, the
// daemons' secure ports) listen: a backlog the kernel allows and several accepts per event-loop
// turn when the loop is slow (docs/apiserver.md#accepting-connections).
export { listenBacklog, readSomaxconn } from './listen-backlog.js';
export type { ListenBacklog } from './listen-backlog.js';
export { copyListener } from './listener-copies.js';
export type { ListenerCopies } from './listener-copies.js';
