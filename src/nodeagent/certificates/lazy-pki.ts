/**
 * src/pki, loaded on first use: it brings @peculiar/x509 and its ASN.1 stack, resident for the
 * process's life once loaded, which an agent that neither bootstraps nor rotates certificates
 * never needs (test/nodeagent/module-graph.test.ts keeps it out of the default agent).
 */
let loading: Promise<typeof import('../../pki/index.js')> | undefined;
export const loadPki = (): Promise<typeof import('../../pki/index.js')> => (loading ??= import('../../pki/index.js'));
