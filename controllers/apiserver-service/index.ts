export {
  ADVERTISE_ANNOTATION,
  APISERVER_LEASE_LABEL,
  APISERVER_LEASE_NAMESPACE,
  KUBERNETES_SERVICE,
  kubernetesService,
  masterCountAddresses,
  withdrawApiServer,
  type KubernetesServiceOptions,
} from './kubernetes-service.js';
export { startKubernetesService, type RunningKubernetesService, type StartKubernetesServiceOptions } from './start.js';
