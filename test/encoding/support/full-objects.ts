/** Objects of the built-in kinds that use most of their fields, for the protobuf tests. */

export const selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] };

const container = {
  name: 'web',
  image: 'nginx:1.27',
  command: ['nginx'],
  args: ['-g', 'daemon off;'],
  workingDir: '/srv',
  ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
  env: [
    { name: 'PLAIN', value: 'v' },
    { name: 'FROM_FIELD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    { name: 'FROM_RESOURCE', valueFrom: { resourceFieldRef: { containerName: 'web', resource: 'limits.cpu', divisor: '1m' } } },
    { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: true } } },
    { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
  ],
  envFrom: [{ prefix: 'CM_', configMapRef: { name: 'cm', optional: false } }, { secretRef: { name: 's' } }],
  resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m' }, claims: [{ name: 'gpu', request: 'one' }] },
  resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
  volumeMounts: [{ name: 'projected', mountPath: '/etc/projected', readOnly: true, recursiveReadOnly: 'IfPossible' }],
  volumeDevices: [{ name: 'block', devicePath: '/dev/xvda' }],
  livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] }, periodSeconds: 5 },
  readinessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 1 },
  startupProbe: { grpc: { port: 9000, service: 'health' }, failureThreshold: 30 },
  lifecycle: {
    postStart: { exec: { command: ['/bin/sh', '-c', 'echo started'] } },
    preStop: { sleep: { seconds: 5 } },
  },
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'FallbackToLogsOnError',
  imagePullPolicy: 'IfNotPresent',
  securityContext: {
    capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
    privileged: false,
    seLinuxOptions: { user: 'system_u', role: 'system_r', type: 'container_t', level: 's0:c1,c2' },
    runAsUser: 1000,
    runAsGroup: 3000,
    runAsNonRoot: true,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    procMount: 'Default',
    seccompProfile: { type: 'RuntimeDefault' },
    appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-nginx' },
  },
  stdin: true,
  stdinOnce: true,
  tty: true,
};

/** A PodSpec using the parts protobuf used to drop; every value passes svc's validation. */
export const podSpec = {
  containers: [container],
  initContainers: [{ name: 'sidecar', image: 'envoy', restartPolicy: 'Always' }],
  volumes: [
    {
      name: 'projected',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'token' } },
          { configMap: { name: 'cm', items: [{ key: 'a', path: 'a.txt', mode: 256 }] } },
          { secret: { name: 's', optional: true } },
          { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          { clusterTrustBundle: { signerName: 'example.com/signer', labelSelector: selector, path: 'bundle.pem' } },
        ],
      },
    },
    { name: 'csi', csi: { driver: 'csi.example.com', readOnly: true, volumeAttributes: { size: 'small' }, nodePublishSecretRef: { name: 's' } } },
    {
      name: 'scratch',
      ephemeral: {
        volumeClaimTemplate: {
          metadata: { labels: { kind: 'scratch' } },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
        },
      },
    },
    { name: 'nfs', nfs: { server: 'nfs.example.com', path: '/exports', readOnly: true } },
    { name: 'downward', downwardAPI: { items: [{ path: 'cpu', resourceFieldRef: { containerName: 'web', resource: 'requests.cpu' } }] } },
    { name: 'image', image: { reference: 'registry.example.com/data:1', pullPolicy: 'IfNotPresent' } },
  ],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n9'] }] }],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } }],
    },
    podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, topologyKey: 'zone', namespaces: ['default'] }] },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 50, podAffinityTerm: { labelSelector: selector, topologyKey: 'kubernetes.io/hostname', matchLabelKeys: ['pod-template-hash'] } },
      ],
    },
  },
  securityContext: {
    runAsUser: 1000,
    fsGroup: 2000,
    fsGroupChangePolicy: 'OnRootMismatch',
    supplementalGroups: [4000, 5000],
    supplementalGroupsPolicy: 'Merge',
    sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
    seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' },
    seLinuxChangePolicy: 'MountOption',
  },
  topologySpreadConstraints: [
    { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector, minDomains: 2, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore' },
  ],
  dnsConfig: { nameservers: ['10.0.0.10'], searches: ['svc.cluster.local'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
  hostAliases: [{ ip: '10.1.2.3', hostnames: ['db.local'] }],
  overhead: { cpu: '100m' },
  os: { name: 'linux' },
  schedulingGates: [{ name: 'example.com/quota' }],
  resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }],
  readinessGates: [{ conditionType: 'example.com/ready' }],
  preemptionPolicy: 'Never',
  priorityClassName: 'high',
  // With its own not-ready and unreachable tolerations, the DefaultTolerationSeconds admission adds none: what is sent is what is stored.
  tolerations: [
    { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoExecute', tolerationSeconds: 60 },
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 120 },
  ],
  resources: { limits: { cpu: '2' } },
  hostUsers: false,
  shareProcessNamespace: true,
  enableServiceLinks: false,
  terminationGracePeriodSeconds: 45,
};

