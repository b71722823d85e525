import type { JsonObject } from '../../src/encoding/index.js';

/**
 * The spec of a density run's pod as the API server stores it after admission and defaults: one
 * projected service-account volume, one pause container, the two default tolerations. Benches that
 * need a realistic pod (its decode, its sync) build their metadata and status around it.
 */
export function densityPodSpec(volume: string, nodeName: string): JsonObject {
  return {
    volumes: [
      {
        name: volume,
        projected: {
          defaultMode: 420,
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
        },
      },
    ],
    containers: [
      {
        name: 'app',
        image: 'registry.example/pause:1',
        resources: { requests: { cpu: '10m', memory: '16Mi' } },
        volumeMounts: [{ name: volume, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    serviceAccount: 'default',
    nodeName,
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  };
}
