// Public surface of src/tls-connections/: TLS that every part of svc shares, below all of them so
// that each may import it and the node agent's bundle never loads the API server — what every
// HTTPS server of svc does to the TLS connections it accepts (the API server, the daemons' secure
// ports, the node agent's server), and node:tls's functions loaded without its ES module (the
// client's transport, the node agent's serving TLS).
export { createSecureContext, getCiphers } from './node-tls.js';
export { readPausedTlsConnectionsThroughStreams } from './paused-tls-reads.js';
