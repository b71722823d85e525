// cpu_manager_state, upstream's v2 format:
// {"policyName":"static","defaultCpuSet":"0,3","entries":{"<pod uid>":{"<container>":"1-2"}},"checksum":N}
// `entries` is left out when empty; the checksum is over the Go struct (go-hash-dump.ts).
import { CheckpointError, readCheckpoint, writeCheckpoint } from './checkpoint-file.js';
import { formatCpuSet, parseCpuSet, type CpuSet } from './cpu-set.js';
import { checkpointChecksum, goString, goUint, type GoValue } from './go-hash-dump.js';

export const CPU_MANAGER_STATE_FILE = 'cpu_manager_state';

export interface CpuManagerState {
  readonly policyName: string;
  defaultCpuSet: CpuSet;
  /** Pod UID → container name → its exclusive CPUs. */
  readonly assignments: Map<string, Map<string, CpuSet>>;
}

function goStruct(policyName: string, defaultCpuSet: string, entries: [string, Map<string, string>][]): GoValue {
  return {
    kind: 'ptr',
    to: {
      kind: 'struct',
      type: 'state.CPUManagerCheckpoint',
      fields: [
        ['PolicyName', goString(policyName)],
        ['DefaultCPUSet', goString(defaultCpuSet)],
        [
          'Entries',
          {
            kind: 'map',
            type: 'map[string]map[string]string',
            entries: entries.map(([uid, containers]) => [goString(uid), { kind: 'map', type: 'map[string]string', entries: [...containers].map(([name, cpus]) => [goString(name), goString(cpus)] as const) }] as const),
          },
        ],
        ['Checksum', goUint(0, 'checksum.Checksum')],
      ],
    },
  };
}

const asText = (state: CpuManagerState): [string, Map<string, string>][] =>
  [...state.assignments].map(([uid, containers]) => [uid, new Map([...containers].map(([name, cpus]) => [name, formatCpuSet(cpus)]))]);

/** The file's text for a state. */
export function formatCpuManagerCheckpoint(state: CpuManagerState): string {
  const entries = asText(state);
  const checksum = checkpointChecksum(goStruct(state.policyName, formatCpuSet(state.defaultCpuSet), entries));
  const json: Record<string, unknown> = { policyName: state.policyName, defaultCpuSet: formatCpuSet(state.defaultCpuSet) };
  if (entries.length > 0) json['entries'] = Object.fromEntries(entries.map(([uid, containers]) => [uid, Object.fromEntries(containers)]));
  json['checksum'] = checksum;
  return JSON.stringify(json);
}

/** Reads a checkpoint; undefined when there is none. Throws {@link CheckpointError} when it is corrupt (bad JSON, fields or checksum). */
export function readCpuManagerCheckpoint(path: string): CpuManagerState | undefined {
  const text = readCheckpoint(path);
  if (text === undefined) return undefined;
  let raw: { policyName?: unknown; defaultCpuSet?: unknown; entries?: unknown; checksum?: unknown };
  try {
    raw = JSON.parse(text) as typeof raw;
  } catch (error) {
    throw new CheckpointError(`${path}: not JSON: ${(error as Error).message}`);
  }
  if (typeof raw.policyName !== 'string' || typeof raw.defaultCpuSet !== 'string') throw new CheckpointError(`${path}: policyName and defaultCpuSet must be strings`);
  const assignments = new Map<string, Map<string, CpuSet>>();
  const entries = raw.entries ?? {};
  if (typeof entries !== 'object' || entries === null) throw new CheckpointError(`${path}: entries must be an object`);
  try {
    for (const [uid, containers] of Object.entries(entries as Record<string, unknown>)) {
      if (typeof containers !== 'object' || containers === null) throw new CheckpointError(`${path}: entries.${uid} must be an object`);
      assignments.set(uid, new Map(Object.entries(containers as Record<string, unknown>).map(([name, cpus]) => [name, parseCpuSet(String(cpus), `${path}: entries.${uid}.${name}`)])));
    }
    const state: CpuManagerState = { policyName: raw.policyName, defaultCpuSet: parseCpuSet(raw.defaultCpuSet, `${path}: defaultCpuSet`), assignments };
    // 0: written without a checksum (upstream accepts it too).
    if (raw.checksum !== undefined && raw.checksum !== 0) {
      const texts: [string, Map<string, string>][] = Object.entries(entries as Record<string, Record<string, string>>).map(([uid, containers]) => [uid, new Map(Object.entries(containers).map(([n, c]) => [n, String(c)]))]);
      const expected = checkpointChecksum(goStruct(raw.policyName, raw.defaultCpuSet, texts));
      if (raw.checksum !== expected) throw new CheckpointError(`${path}: checkpoint is corrupted (checksum ${String(raw.checksum)}, content sums to ${expected})`);
    }
    return state;
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError((error as Error).message);
  }
}

export const writeCpuManagerCheckpoint = (path: string, state: CpuManagerState): void => writeCheckpoint(path, formatCpuManagerCheckpoint(state));
