import { eachItem, fill, ifPresent, pipe, when, within, type Edit } from './json-fill.js';

/**
 * Kubernetes' defaults of a pod spec (k8s.io/api core/v1 SetDefaults_PodSpec, _Container, _Probe,
 * _Volume...), and the struct fields Go writes even when empty (`resources: {}`,
 * `securityContext: {}`, a container status's `state` and `lastState`). Shared by Pods and every
 * pod template.
 */

/** Always for an image without tag and digest or tagged `latest`, else IfNotPresent (Kubernetes' rule). */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' | undefined {
  if (typeof image !== 'string' || image === '') return undefined;
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  const tag = colon < 0 ? undefined : last.slice(colon + 1);
  return tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

const probe: Edit = pipe(
  fill(() => ({ timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 })),
  ifPresent('httpGet', fill(() => ({ scheme: 'HTTP' }))),
);

const container: Edit = pipe(
  fill(() => ({ terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} })),
  when((c) => {
    const policy = defaultPullPolicy(c['image']);
    return policy && fill(() => ({ imagePullPolicy: policy }));
  }),
  eachItem('ports', fill(() => ({ protocol: 'TCP' }))),
  ifPresent('livenessProbe', probe),
  ifPresent('readinessProbe', probe),
  ifPresent('startupProbe', probe),
  eachItem('env', ifPresent('valueFrom', ifPresent('fieldRef', fill(() => ({ apiVersion: 'v1' }))))),
);

/** Files written from API objects are rw-r--r-- unless the volume says otherwise. */
const FILE_MODE = 0o644;

const volume: Edit = pipe(
  ifPresent('configMap', fill(() => ({ defaultMode: FILE_MODE }))),
  ifPresent('secret', fill(() => ({ defaultMode: FILE_MODE }))),
  ifPresent('downwardAPI', fill(() => ({ defaultMode: FILE_MODE }))),
  ifPresent('projected', fill(() => ({ defaultMode: FILE_MODE }))),
  ifPresent('hostPath', fill(() => ({ type: '' }))),
);

export const podSpecDefaults: Edit = pipe(
  fill(() => ({
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
    enableServiceLinks: true,
  })),
  eachItem('containers', container),
  eachItem('initContainers', container),
  eachItem('ephemeralContainers', container),
  eachItem('volumes', volume),
);

/** A pod template: its metadata (an ObjectMeta struct) and spec are always written. */
export const podTemplateDefaults: Edit = pipe(
  within('metadata', (m) => m),
  within('spec', podSpecDefaults),
);

// ContainerStatus: `state` and `lastState` are structs; ready, restartCount, image and imageID
// have no omitempty (generated clients require them).
const containerStatus: Edit = fill(() => ({ state: {}, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '' }));

export const podStatusDefaults: Edit = pipe(
  eachItem('containerStatuses', containerStatus),
  eachItem('initContainerStatuses', containerStatus),
  eachItem('ephemeralContainerStatuses', containerStatus),
);
