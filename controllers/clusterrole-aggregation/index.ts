export { aggregatedRules, clusterRoleAggregationController } from './clusterrole-aggregation-controller.js';
