// Public surface of controllers/device-taint-eviction: the loop behind the DRADeviceTaints gate (docs/autoscaling.md#device-taint-eviction).
export { deviceTaintEvictionController } from './device-taint-eviction-controller.js';
