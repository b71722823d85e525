export { Aggregator, type AggregatorOptions } from './aggregator.js';
export { AUTOMANAGED_LABEL, desiredLocalApiServices, serveApiServices } from './local-apiservices.js';
export { AGGREGATOR_USER } from './discovery-check.js';
export type { ProxyClientCertificate } from './remote-api-service.js';
export type { ResourceDiscovery, VersionDiscovery } from './discovery-v2.js';
