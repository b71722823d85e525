// Public surface of src/live/ (`svc/live`): any stream served live to browsers — an informer's
// events$, a controller's results — as Server-Sent Events or WebSocket messages, bounded per
// client (docs/dashboard.md#serving-a-live-view-from-your-own-app-svclive).
export { eventStreamText, informerFrame, liveRoute, serveEventStream, serveLiveStream, toEventStream } from './live-stream.js';
export type { LiveFrame, LiveStreamOptions } from './live-stream.js';
