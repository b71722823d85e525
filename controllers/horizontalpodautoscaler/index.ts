// Public surface of controllers/horizontalpodautoscaler: the horizontal pod autoscaler loop and
// its pure parts (docs/controller-manager.md#horizontal-pod-autoscaler-controller, docs/autoscaling.md).
export { horizontalPodAutoscalerController } from './horizontal-pod-autoscaler-controller.js';
export type { HorizontalPodAutoscalerOptions } from './horizontal-pod-autoscaler-controller.js';
export { MetricUnavailableError, resourceReplicas } from './replica-calculator.js';
export type { CalculatorSettings, MetricSample, PodSample, ResourceReplicas, ResourceReplicasInput, ResourceTarget } from './replica-calculator.js';
export { DEFAULT_SCALE_UP, defaultScaleDown, normalizeWithBehavior, normalizeWithoutBehavior, recordScaleEvent, resolveBehavior, ScaleHistory, scaleDownLimit, scaleUpLimit } from './scale-behavior.js';
export type { Behavior, BehaviorSpec, Normalized, NormalizeInput, ScalingPolicy, ScalingRules } from './scale-behavior.js';
