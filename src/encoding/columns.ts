import { ageOf } from './duration.js';
import { arr, at, isObject, num, obj, str, type JsonObject } from './json-value.js';

/** A Table column as `meta/v1` TableColumnDefinition writes it. */
export interface ColumnDefinition {
  readonly name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  readonly type: string;
  readonly format: string;
  readonly description: string;
  /** 0: always shown; 1 and above: only with `-o wide`. */
  readonly priority: number;
}

/** How one type's objects become rows. */
export interface TableConvertor {
  readonly columns: readonly ColumnDefinition[];
  cells(object: JsonObject, now: number): unknown[];
}

const col = (name: string, type = 'string', description = '', priority = 0, format = ''): ColumnDefinition =>
  Object.freeze({ name, type, format, description, priority });

const NAME = col('Name', 'string', 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', 0, 'name');
const AGE = col('Age', 'string', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

/** The table of a type without its own printer: Name and Created At (spec "Table representation"). */
export const DEFAULT_TABLE: TableConvertor = Object.freeze({
  columns: [NAME, col('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.')],
  cells: (object: JsonObject) => [str(object, 'metadata.name') ?? '', str(object, 'metadata.creationTimestamp') ?? null],
});

const name = (o: JsonObject) => str(o, 'metadata.name') ?? '';
const age = (o: JsonObject, now: number) => ageOf(str(o, 'metadata.creationTimestamp'), now);
const none = (text: string | undefined) => (text === undefined || text === '' ? '<none>' : text);
const keys = (value: unknown) => (isObject(value) ? Object.keys(value).length : 0);
const selectorText = (selector: JsonObject) => {
  const parts = Object.entries(obj(selector, 'matchLabels')).map(([k, v]) => `${k}=${String(v)}`);
  for (const e of arr(selector, 'matchExpressions')) {
    parts.push(`${str(e, 'key') ?? ''} ${(str(e, 'operator') ?? '').toLowerCase()} (${arr(e, 'values').join(',')})`);
  }
  return none(parts.join(','));
};
const containers = (o: JsonObject, path: string) => arr(o, path).map((c) => str(c, 'name') ?? '').join(',');
const images = (o: JsonObject, path: string) => arr(o, path).map((c) => str(c, 'image') ?? '').join(',');

/** A table with Name first and the given columns after it (cells without the name). */
/**
 * An autoscaler's metrics as kubectl prints them: `cpu: 64%/50%` for a utilization target,
 * `memory: 10Mi/100Mi` for a value, `<unknown>` before a current value is known; past two, the
 * rest counted (`+ 1 more...`).
 */
function hpaTargets(specs: readonly unknown[], currents: readonly unknown[]): string {
  if (specs.length === 0) return '<none>';
  const text = specs.map((spec, i) => {
    const type = str(spec, 'type') ?? '';
    const key = type === 'ContainerResource' ? 'containerResource' : type.charAt(0).toLowerCase() + type.slice(1);
    const resourceName = type === 'Resource' || type === 'ContainerResource' ? `${str(spec, `${key}.name`) ?? ''}: ` : '';
    const utilization = num(spec, `${key}.target.averageUtilization`);
    if (utilization) {
      const current = num(currents[i], `${key}.current.averageUtilization`);
      const known = isObject(currents[i]) && str(currents[i], `${key}.current.averageValue`) !== undefined;
      return `${resourceName}${known ? `${current}%` : '<unknown>'}/${utilization}%`;
    }
    const wanted = str(spec, `${key}.target.averageValue`) ?? str(spec, `${key}.target.value`) ?? '<unset>';
    const current = str(currents[i], `${key}.current.averageValue`) ?? str(currents[i], `${key}.current.value`) ?? '<unknown>';
    return `${resourceName}${current}/${wanted}`;
  });
  return text.length > 2 ? `${text.slice(0, 2).join(', ')} + ${text.length - 2} more...` : text.join(', ');
}

function table(columns: ColumnDefinition[], cells: (o: JsonObject, now: number) => unknown[]): TableConvertor {
  return Object.freeze({ columns: [NAME, ...columns], cells: (o: JsonObject, now: number) => [name(o), ...cells(o, now)] });
}

/** Pod's Status column: the phase, overridden by a container's waiting/terminated reason, or Terminating. */
function podStatus(pod: JsonObject): string {
  let reason = str(pod, 'status.reason') ?? str(pod, 'status.phase') ?? 'Pending';
  for (const status of arr(pod, 'status.containerStatuses')) {
    const waiting = str(status, 'state.waiting.reason');
    const terminated = obj(status, 'state.terminated');
    if (waiting) reason = waiting;
    else if (str(terminated, 'reason')) reason = str(terminated, 'reason')!;
    else if (isObject((status as JsonObject)['state']) && Object.keys(terminated).length > 0) {
      reason = num(terminated, 'signal') ? `Signal:${num(terminated, 'signal')}` : `ExitCode:${num(terminated, 'exitCode')}`;
    }
  }
  if (str(pod, 'metadata.deletionTimestamp') && reason !== 'NodeLost') reason = 'Terminating';
  return reason;
}

const podTable = table(
  [
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE,
    col('IP', 'string', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', 1),
    col('Node', 'string', 'NodeName is a request to schedule this pod onto a specific node.', 1),
    col('Nominated Node', 'string', 'nominatedNodeName is set when this pod preempts other pods on the node.', 1),
    col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  (pod, now) => {
    const statuses = arr(pod, 'status.containerStatuses');
    const ready = statuses.filter((s) => isObject(s) && s['ready'] === true).length;
    const restarts = statuses.reduce<number>((sum, s) => sum + num(s, 'restartCount'), 0);
    const gates = arr(pod, 'spec.readinessGates');
    return [
      `${ready}/${arr(pod, 'spec.containers').length}`,
      podStatus(pod),
      String(restarts),
      age(pod, now),
      none(str(pod, 'status.podIP')),
      none(str(pod, 'spec.nodeName')),
      none(str(pod, 'status.nominatedNodeName')),
      gates.length === 0 ? '<none>' : `${gates.length}`,
    ];
  },
);

const wideWorkload = [col('Containers', 'string', 'Names of each container in the template.', 1), col('Images', 'string', 'Images referenced by each container in the template.', 1), col('Selector', 'string', 'Label selector for pods.', 1)];
const workloadWide = (o: JsonObject) => [containers(o, 'spec.template.spec.containers'), images(o, 'spec.template.spec.containers'), selectorText(obj(o, 'spec.selector'))];

const replicaTable = table(
  [col('Desired', 'integer', 'Number of desired pods.'), col('Current', 'integer', 'Number of actual replicas.'), col('Ready', 'integer', 'The number of ready replicas.'), AGE, ...wideWorkload],
  (o, now) => [num(o, 'spec.replicas'), num(o, 'status.replicas'), num(o, 'status.readyReplicas'), age(o, now), ...workloadWide(o)],
);

const TABLES: Readonly<Record<string, TableConvertor>> = {
  '/Pod': podTable,
  'apps/Deployment': table(
    [col('Ready', 'string', 'Number of the pod with ready state'), col('Up-to-date', 'integer', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'), col('Available', 'integer', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'), AGE, ...wideWorkload],
    (o, now) => [`${num(o, 'status.readyReplicas')}/${num(o, 'spec.replicas')}`, num(o, 'status.updatedReplicas'), num(o, 'status.availableReplicas'), age(o, now), ...workloadWide(o)],
  ),
  'apps/ReplicaSet': replicaTable,
  '/ReplicationController': replicaTable,
  'apps/StatefulSet': table(
    [col('Ready', 'string', 'Number of the pod with ready state'), AGE, col('Containers', 'string', 'Names of each container in the template.', 1), col('Images', 'string', 'Images referenced by each container in the template.', 1)],
    (o, now) => [`${num(o, 'status.readyReplicas')}/${num(o, 'spec.replicas')}`, age(o, now), containers(o, 'spec.template.spec.containers'), images(o, 'spec.template.spec.containers')],
  ),
  'apps/DaemonSet': table(
    [col('Desired', 'integer'), col('Current', 'integer'), col('Ready', 'integer'), col('Up-to-date', 'integer'), col('Available', 'integer'), col('Node Selector', 'string'), AGE, ...wideWorkload],
    (o, now) => [
      num(o, 'status.desiredNumberScheduled'),
      num(o, 'status.currentNumberScheduled'),
      num(o, 'status.numberReady'),
      num(o, 'status.updatedNumberScheduled'),
      num(o, 'status.numberAvailable'),
      none(Object.entries(obj(o, 'spec.template.spec.nodeSelector')).map(([k, v]) => `${k}=${String(v)}`).join(',')),
      age(o, now),
      ...workloadWide(o),
    ],
  ),
  'batch/Job': table(
    [col('Status', 'string', 'Status of the job.'), col('Completions', 'string', 'The completion status of the job.'), col('Duration', 'string', 'Time required to complete the job.'), AGE, ...wideWorkload],
    (o, now) => {
      const conditions = arr(o, 'status.conditions').filter((c) => str(c, 'status') === 'True').map((c) => str(c, 'type'));
      const status = conditions.includes('Complete') ? 'Complete' : conditions.includes('Failed') ? 'Failed' : str(o, 'metadata.deletionTimestamp') ? 'Terminating' : conditions.includes('Suspended') ? 'Suspended' : 'Running';
      const start = str(o, 'status.startTime');
      const end = str(o, 'status.completionTime');
      const duration = start ? ageOf(start, end ? Date.parse(end) : now) : '';
      return [status, `${num(o, 'status.succeeded')}/${at1(o)}`, duration, age(o, now), ...workloadWide(o)];
    },
  ),
  'batch/CronJob': table(
    [col('Schedule', 'string'), col('Timezone', 'string'), col('Suspend', 'boolean'), col('Active', 'integer'), col('Last Schedule', 'string'), AGE, ...wideWorkload.slice(0, 2), col('Selector', 'string', '', 1)],
    (o, now) => [
      str(o, 'spec.schedule') ?? '',
      none(str(o, 'spec.timeZone')),
      obj(o, 'spec')['suspend'] === true,
      arr(o, 'status.active').length,
      str(o, 'status.lastScheduleTime') ? ageOf(str(o, 'status.lastScheduleTime'), now) : '<none>',
      age(o, now),
      containers(o, 'spec.jobTemplate.spec.template.spec.containers'),
      images(o, 'spec.jobTemplate.spec.template.spec.containers'),
      selectorText(obj(o, 'spec.jobTemplate.spec.selector')),
    ],
  ),
  '/Service': table(
    [col('Type', 'string'), col('Cluster-IP', 'string'), col('External-IP', 'string'), col('Port(s)', 'string'), AGE, col('Selector', 'string', '', 1)],
    (o, now) => {
      const type = str(o, 'spec.type') ?? 'ClusterIP';
      const external = arr(o, 'spec.externalIPs').map(String);
      for (const ingress of arr(o, 'status.loadBalancer.ingress')) external.push(str(ingress, 'ip') ?? str(ingress, 'hostname') ?? '');
      const ports = arr(o, 'spec.ports').map((p) => `${num(p, 'port')}${num(p, 'nodePort') ? `:${num(p, 'nodePort')}` : ''}/${str(p, 'protocol') ?? 'TCP'}`);
      const externalText = external.length ? external.join(',') : type === 'LoadBalancer' ? '<pending>' : type === 'ExternalName' ? (str(o, 'spec.externalName') ?? '<none>') : '<none>';
      return [type, none(str(o, 'spec.clusterIP')), externalText, none(ports.join(',')), age(o, now), none(Object.entries(obj(o, 'spec.selector')).map(([k, v]) => `${k}=${String(v)}`).join(','))];
    },
  ),
  '/Namespace': table([col('Status', 'string', 'The status of the namespace'), AGE], (o, now) => [str(o, 'status.phase') ?? '', age(o, now)]),
  '/Node': table(
    [col('Status', 'string'), col('Roles', 'string'), AGE, col('Version', 'string'), col('Internal-IP', 'string', '', 1), col('External-IP', 'string', '', 1), col('OS-Image', 'string', '', 1), col('Kernel-Version', 'string', '', 1), col('Container-Runtime', 'string', '', 1)],
    (o, now) => {
      const ready = arr(o, 'status.conditions').find((c) => str(c, 'type') === 'Ready');
      const statuses = [ready === undefined ? 'Unknown' : str(ready, 'status') === 'True' ? 'Ready' : 'NotReady'];
      if (obj(o, 'spec')['unschedulable'] === true) statuses.push('SchedulingDisabled');
      const roles = Object.keys(obj(o, 'metadata.labels')).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice('node-role.kubernetes.io/'.length));
      const address = (type: string) => none(arr(o, 'status.addresses').filter((a) => str(a, 'type') === type).map((a) => str(a, 'address')).join(','));
      return [statuses.join(','), none(roles.join(',')), age(o, now), str(o, 'status.nodeInfo.kubeletVersion') ?? '', address('InternalIP'), address('ExternalIP'), none(str(o, 'status.nodeInfo.osImage')), none(str(o, 'status.nodeInfo.kernelVersion')), none(str(o, 'status.nodeInfo.containerRuntimeVersion'))];
    },
  ),
  '/ConfigMap': table([col('Data', 'integer'), AGE], (o, now) => [keys(o['data']) + keys(o['binaryData']), age(o, now)]),
  '/Secret': table([col('Type', 'string'), col('Data', 'integer'), AGE], (o, now) => [str(o, 'type') ?? 'Opaque', keys(o['data']) + keys(o['stringData']), age(o, now)]),
  '/ServiceAccount': table([col('Secrets', 'string'), AGE], (o, now) => [arr(o, 'secrets').length, age(o, now)]),
  '/Endpoints': table([col('Endpoints', 'string'), AGE], (o, now) => {
    const endpoints: string[] = [];
    for (const subset of arr(o, 'subsets')) {
      const ports = arr(subset, 'ports').map((p) => num(p, 'port'));
      for (const address of arr(subset, 'addresses')) {
        for (const port of ports.length ? ports : [undefined]) endpoints.push(port === undefined ? (str(address, 'ip') ?? '') : `${str(address, 'ip') ?? ''}:${port}`);
      }
    }
    return [none(endpoints.slice(0, 3).join(',') + (endpoints.length > 3 ? ` + ${endpoints.length - 3} more...` : '')), age(o, now)];
  }),
  '/PersistentVolumeClaim': table(
    [col('Status', 'string'), col('Volume', 'string'), col('Capacity', 'string'), col('Access Modes', 'string'), col('StorageClass', 'string'), col('VolumeAttributesClass', 'string'), AGE, col('VolumeMode', 'string', '', 1)],
    (o, now) => [str(o, 'status.phase') ?? '', str(o, 'spec.volumeName') ?? '', str(o, 'status.capacity.storage') ?? '', accessModes(arr(o, 'status.accessModes')), none(str(o, 'spec.storageClassName')), none(str(o, 'spec.volumeAttributesClassName')), age(o, now), str(o, 'spec.volumeMode') ?? 'Filesystem'],
  ),
  '/PersistentVolume': table(
    [col('Capacity', 'string'), col('Access Modes', 'string'), col('Reclaim Policy', 'string'), col('Status', 'string'), col('Claim', 'string'), col('StorageClass', 'string'), col('VolumeAttributesClass', 'string'), col('Reason', 'string'), AGE, col('VolumeMode', 'string', '', 1)],
    (o, now) => {
      const claim = str(o, 'spec.claimRef.name') ? `${str(o, 'spec.claimRef.namespace') ?? ''}/${str(o, 'spec.claimRef.name')}` : '';
      return [str(o, 'spec.capacity.storage') ?? '', accessModes(arr(o, 'spec.accessModes')), str(o, 'spec.persistentVolumeReclaimPolicy') ?? '', str(o, 'status.phase') ?? '', claim, str(o, 'spec.storageClassName') ?? '', none(str(o, 'spec.volumeAttributesClassName')), str(o, 'status.reason') ?? '', age(o, now), str(o, 'spec.volumeMode') ?? 'Filesystem'];
    },
  ),
  '/Event': Object.freeze({
    columns: [col('Last Seen', 'string'), col('Type', 'string'), col('Reason', 'string'), col('Object', 'string'), col('Message', 'string')],
    cells: (o: JsonObject, now: number) => [
      ageOf(str(o, 'lastTimestamp') ?? str(o, 'eventTime') ?? str(o, 'metadata.creationTimestamp'), now),
      str(o, 'type') ?? '',
      str(o, 'reason') ?? '',
      `${(str(o, 'involvedObject.kind') ?? '').toLowerCase()}/${str(o, 'involvedObject.name') ?? ''}`,
      (str(o, 'message') ?? '').trim(),
    ],
  }),
  'coordination.svc.io/Lease': table([col('Holder', 'string'), AGE], (o, now) => [str(o, 'spec.holderIdentity') ?? '', age(o, now)]),
  'autoscaling/HorizontalPodAutoscaler': table(
    [col('Reference', 'string'), col('Targets', 'string'), col('MinPods', 'string'), col('MaxPods', 'integer'), col('Replicas', 'integer'), AGE],
    (o, now) => [`${str(o, 'spec.scaleTargetRef.kind') ?? ''}/${str(o, 'spec.scaleTargetRef.name') ?? ''}`, hpaTargets(arr(o, 'spec.metrics'), arr(o, 'status.currentMetrics')), String(num(o, 'spec.minReplicas') || 1), num(o, 'spec.maxReplicas'), num(o, 'status.currentReplicas'), age(o, now)],
  ),
  'policy/PodDisruptionBudget': table(
    [col('Min Available', 'string'), col('Max Unavailable', 'string'), col('Allowed Disruptions', 'integer'), AGE],
    (o, now) => [intOrString(obj(o, 'spec')['minAvailable']), intOrString(obj(o, 'spec')['maxUnavailable']), num(o, 'status.disruptionsAllowed'), age(o, now)],
  ),
  'apps/ControllerRevision': table([col('Controller', 'string'), col('Revision', 'integer'), AGE], (o, now) => {
    const owner = arr(o, 'metadata.ownerReferences').find((r) => isObject(r) && r['controller'] === true);
    return [owner ? `${(str(owner, 'kind') ?? '').toLowerCase()}.${(str(owner, 'apiVersion') ?? '').split('/')[0]}/${str(owner, 'name') ?? ''}` : '<none>', num(o, 'revision'), age(o, now)];
  }),
  'rbac.authorization.svc.io/ClusterRoleBinding': table([col('Role', 'string'), AGE], (o, now) => [`${str(o, 'roleRef.kind') ?? ''}/${str(o, 'roleRef.name') ?? ''}`, age(o, now)]),
  'rbac.authorization.svc.io/RoleBinding': table([col('Role', 'string'), AGE], (o, now) => [`${str(o, 'roleRef.kind') ?? ''}/${str(o, 'roleRef.name') ?? ''}`, age(o, now)]),
  'admissionregistration.svc.io/MutatingWebhookConfiguration': table([col('Webhooks', 'integer'), AGE], (o, now) => [arr(o, 'webhooks').length, age(o, now)]),
  'admissionregistration.svc.io/ValidatingWebhookConfiguration': table([col('Webhooks', 'integer'), AGE], (o, now) => [arr(o, 'webhooks').length, age(o, now)]),
  'admissionregistration.svc.io/ValidatingAdmissionPolicy': table([col('Validations', 'integer'), col('ParamKind', 'string'), AGE], (o, now) => {
    const kind = str(o, 'spec.paramKind.kind');
    return [arr(o, 'spec.validations').length, kind ? `${str(o, 'spec.paramKind.apiVersion') ?? ''}/${kind}` : '<unset>', age(o, now)];
  }),
  'admissionregistration.svc.io/ValidatingAdmissionPolicyBinding': table([col('PolicyName', 'string'), col('ParamRef', 'string'), AGE], (o, now) => {
    const ref = isObject(at(o, 'spec.paramRef')) ? obj(o, 'spec.paramRef') : undefined;
    const name = ref === undefined ? '<unset>' : str(ref, 'namespace') ? `${str(ref, 'namespace')}/${str(ref, 'name') ?? '*'}` : (str(ref, 'name') ?? '*');
    return [str(o, 'spec.policyName') ?? '', name, age(o, now)];
  }),
  'apiregistration.svc.io/APIService': table([col('Service', 'string'), col('Available', 'string'), AGE], (o, now) => {
    const service = obj(o, 'spec.service');
    const available = arr(o, 'status.conditions').find((c) => str(c, 'type') === 'Available');
    const status = available ? (str(available, 'status') ?? 'Unknown') : 'Unknown';
    return [
      str(service, 'name') !== undefined ? `${str(service, 'namespace') ?? ''}/${str(service, 'name')}` : 'Local',
      status === 'True' || !available ? status : `${status} (${str(available, 'reason') ?? ''})`,
      age(o, now),
    ];
  }),
  'discovery.svc.io/EndpointSlice': table([col('AddressType', 'string'), col('Ports', 'string'), col('Endpoints', 'string'), AGE], (o, now) => [
    str(o, 'addressType') ?? '',
    none(arr(o, 'ports').map((p) => String(num(p, 'port'))).join(',')),
    none(arr(o, 'endpoints').flatMap((e) => arr(e, 'addresses').map(String)).slice(0, 3).join(',')),
    age(o, now),
  ]),
};

const at1 = (o: JsonObject) => {
  const completions = obj(o, 'spec')['completions'];
  return typeof completions === 'number' ? completions : 1;
};
const intOrString = (value: unknown) => (value === undefined || value === null ? 'N/A' : String(value));
const ACCESS: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
const accessModes = (modes: unknown[]) => modes.map((m) => ACCESS[String(m)] ?? String(m)).join(',');

/**
 * The table of a type: the kubectl printer's columns for the built-in kinds (by group and kind),
 * the default Name / Created At for every other type.
 */
export function tableConvertorOf(group: string, kind: string, builtin: boolean): TableConvertor {
  return (builtin && TABLES[`${group}/${kind}`]) || DEFAULT_TABLE;
}

/** The kinds with their own columns, as `group/Kind` (core: `/Kind`). */
export const KINDS_WITH_COLUMNS: readonly string[] = Object.keys(TABLES);
