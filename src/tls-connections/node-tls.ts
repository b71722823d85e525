import { createRequire } from 'node:module';

// node:tls through require, not import, for every part of svc that calls it (the client's
// transport, the node agent's serving TLS): to build an ES module of node:tls, Node reads each of
// its exports, `rootCertificates` too, and keeps its ~140 PEM strings for good (~250 KB of a
// daemon that never uses them; node-agent.md, "Memory"). Read from the CommonJS module, the
// getter of `rootCertificates` runs only when someone reads it. One require here, so that the
// node agent's bundle holds one (test/cli/nodeagent-bundle.test.ts).
const tls = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');

/** `tls.createSecureContext`, from node:tls loaded without its ES module facade. */
export const createSecureContext: typeof import('node:tls').createSecureContext = tls.createSecureContext;

/** `tls.getCiphers`, from node:tls loaded without its ES module facade. */
export const getCiphers: typeof import('node:tls').getCiphers = tls.getCiphers;
