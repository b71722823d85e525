export { DNS_TTL, resolveClusterName, reverseAddress, soa, type ClusterView, type Resolution } from './cluster-records.js';
export { AnswerCache, answerQuery, hostResolvers, startClusterDns, type ClusterDns, type ClusterDnsOptions } from './dns-server.js';
