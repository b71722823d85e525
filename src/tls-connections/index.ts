// Public surface of src/tls-connections/: what every HTTPS server of svc does to the TLS
// connections it accepts (the API server, the daemons' secure ports, the node agent's server),
// below all of them so that each may import it and the node agent's bundle never loads the API server.
export { readPausedTlsConnectionsThroughStreams } from './paused-tls-reads.js';
