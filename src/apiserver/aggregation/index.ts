export { Aggregator, type AggregatorOptions } from './aggregator.js';
export { AUTOMANAGED_LABEL, desiredLocalApiServices } from './local-apiservices.js';
export { AGGREGATOR_USER } from './discovery-check.js';
export type { ProxyClientCertificate } from './remote-api-service.js';
