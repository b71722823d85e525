// memory_manager_state, upstream's format:
// {"policyName":"Static","machineState":{"0":{"numberOfAssignments":1,"memoryMap":{"memory":
//  {"total":N,"systemReserved":N,"allocatable":N,"reserved":N,"free":N}},"cells":[0]}},
//  "entries":{"<pod uid>":{"<container>":[{"numaAffinity":[0],"type":"memory","size":N}]}},"checksum":N}
import { CheckpointError, readCheckpoint, writeCheckpoint } from './checkpoint-file.js';
import { checkpointChecksum, goInt, goString, goUint, type GoValue } from './go-hash-dump.js';

export const MEMORY_MANAGER_STATE_FILE = 'memory_manager_state';

export interface MemoryTable {
  total: number;
  systemReserved: number;
  allocatable: number;
  reserved: number;
  free: number;
}

export interface NumaNodeState {
  numberOfAssignments: number;
  memoryMap: Map<string, MemoryTable>;
  /** The nodes this node's assignments span together (itself alone when none span more). */
  cells: number[];
}

export interface MemoryBlock {
  readonly numaAffinity: number[];
  readonly type: string;
  readonly size: number;
}

export interface MemoryManagerState {
  readonly policyName: string;
  readonly machineState: Map<number, NumaNodeState>;
  readonly assignments: Map<string, Map<string, MemoryBlock[]>>;
}

const TABLE_FIELDS = [
  ['TotalMemSize', 'total'],
  ['SystemReserved', 'systemReserved'],
  ['Allocatable', 'allocatable'],
  ['Reserved', 'reserved'],
  ['Free', 'free'],
] as const;

function goState(state: MemoryManagerState): GoValue {
  const ints = (items: readonly number[]): GoValue => ({ kind: 'slice', type: '[]int', items: items.map((n) => goInt(n)) });
  return {
    kind: 'ptr',
    to: {
      kind: 'struct',
      type: 'state.MemoryManagerCheckpoint',
      fields: [
        ['PolicyName', goString(state.policyName)],
        [
          'MachineState',
          {
            kind: 'map',
            type: 'state.NUMANodeMap',
            entries: [...state.machineState].map(([node, s]) => [
              goInt(node),
              {
                kind: 'ptr',
                to: {
                  kind: 'struct',
                  type: 'state.NUMANodeState',
                  fields: [
                    ['NumberOfAssignments', goInt(s.numberOfAssignments)],
                    [
                      'MemoryMap',
                      {
                        kind: 'map',
                        type: 'map[v1.ResourceName]*state.MemoryTable',
                        entries: [...s.memoryMap].map(([type, table]) => [
                          goString(type, 'v1.ResourceName'),
                          { kind: 'ptr', to: { kind: 'struct', type: 'state.MemoryTable', fields: TABLE_FIELDS.map(([go, js]) => [go, goUint(table[js])] as const) } },
                        ] as const),
                      },
                    ],
                    ['Cells', ints(s.cells)],
                  ],
                },
              },
            ] as const),
          },
        ],
        [
          'Entries',
          {
            kind: 'map',
            type: 'state.ContainerMemoryAssignments',
            entries: [...state.assignments].map(([uid, containers]) => [
              goString(uid),
              {
                kind: 'map',
                type: 'map[string][]state.Block',
                entries: [...containers].map(([name, blocks]) => [
                  goString(name),
                  {
                    kind: 'slice',
                    type: '[]state.Block',
                    items: blocks.map((b): GoValue => ({ kind: 'struct', type: 'state.Block', fields: [['NUMAAffinity', ints(b.numaAffinity)], ['Type', goString(b.type, 'v1.ResourceName')], ['Size', goUint(b.size)]] })),
                  },
                ] as const),
              },
            ] as const),
          },
        ],
        ['Checksum', goUint(0, 'checksum.Checksum')],
      ],
    },
  };
}

export function formatMemoryManagerCheckpoint(state: MemoryManagerState): string {
  const machineState = Object.fromEntries(
    [...state.machineState].map(([node, s]) => [String(node), { numberOfAssignments: s.numberOfAssignments, memoryMap: Object.fromEntries([...s.memoryMap].sort(([a], [b]) => (a < b ? -1 : 1))), cells: s.cells }]),
  );
  const json: Record<string, unknown> = { policyName: state.policyName, machineState };
  if (state.assignments.size > 0) json['entries'] = Object.fromEntries([...state.assignments].map(([uid, containers]) => [uid, Object.fromEntries(containers)]));
  json['checksum'] = checkpointChecksum(goState(state));
  return JSON.stringify(json);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown, what: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new CheckpointError(`${what} must be a non-negative number`);
  return value;
};
const nums = (value: unknown, what: string): number[] => {
  if (!Array.isArray(value)) throw new CheckpointError(`${what} must be a list of numbers`);
  return value.map((v, i) => num(v, `${what}[${i}]`));
};

export function readMemoryManagerCheckpoint(path: string): MemoryManagerState | undefined {
  const text = readCheckpoint(path);
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(`${path}: not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(raw) || typeof raw['policyName'] !== 'string') throw new CheckpointError(`${path}: policyName must be a string`);
  const machineState = new Map<number, NumaNodeState>();
  for (const [node, s] of Object.entries(isRecord(raw['machineState']) ? raw['machineState'] : {})) {
    if (!isRecord(s) || !isRecord(s['memoryMap'])) throw new CheckpointError(`${path}: machineState.${node} must hold a memoryMap`);
    const memoryMap = new Map<string, MemoryTable>();
    for (const [type, t] of Object.entries(s['memoryMap'])) {
      if (!isRecord(t)) throw new CheckpointError(`${path}: machineState.${node}.memoryMap.${type} must be an object`);
      const at = (field: string) => num(t[field], `${path}: machineState.${node}.memoryMap.${type}.${field}`);
      memoryMap.set(type, { total: at('total'), systemReserved: at('systemReserved'), allocatable: at('allocatable'), reserved: at('reserved'), free: at('free') });
    }
    machineState.set(Number(node), { numberOfAssignments: num(s['numberOfAssignments'] ?? 0, `${path}: numberOfAssignments`), memoryMap, cells: nums(s['cells'] ?? [Number(node)], `${path}: cells`) });
  }
  const assignments = new Map<string, Map<string, MemoryBlock[]>>();
  for (const [uid, containers] of Object.entries(isRecord(raw['entries']) ? raw['entries'] : {})) {
    if (!isRecord(containers)) throw new CheckpointError(`${path}: entries.${uid} must be an object`);
    const byName = new Map<string, MemoryBlock[]>();
    for (const [name, blocks] of Object.entries(containers)) {
      if (!Array.isArray(blocks)) throw new CheckpointError(`${path}: entries.${uid}.${name} must be a list`);
      byName.set(
        name,
        blocks.map((b: unknown) => {
          if (!isRecord(b) || typeof b['type'] !== 'string') throw new CheckpointError(`${path}: entries.${uid}.${name}: a block needs a type`);
          return { numaAffinity: nums(b['numaAffinity'], `${path}: numaAffinity`), type: b['type'], size: num(b['size'], `${path}: size`) };
        }),
      );
    }
    assignments.set(uid, byName);
  }
  const state: MemoryManagerState = { policyName: raw['policyName'], machineState, assignments };
  const checksum = raw['checksum'];
  if (checksum !== undefined && checksum !== 0 && checksum !== checkpointChecksum(goState(state))) throw new CheckpointError(`${path}: checkpoint is corrupted (checksum mismatch)`);
  return state;
}

export const writeMemoryManagerCheckpoint = (path: string, state: MemoryManagerState): void => writeCheckpoint(path, formatMemoryManagerCheckpoint(state));
