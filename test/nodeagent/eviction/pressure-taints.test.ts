import { describe, expect, it } from 'vitest';
import { withPressureTaints, type NodeCondition } from '../../../src/nodeagent/index.js';

const condition = (type: NodeCondition['type'], status: 'True' | 'False'): NodeCondition => ({ type, status, reason: '', message: '', lastHeartbeatTime: '', lastTransitionTime: '' });

describe('pressure taints', () => {
  it('a True pressure condition adds its NoSchedule taint, a False one removes it, other taints stay', () => {
    const other = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    const tainted = withPressureTaints([other], [condition('MemoryPressure', 'True'), condition('DiskPressure', 'False'), condition('PIDPressure', 'True')]);
    expect(tainted).toEqual([other, { key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/pid-pressure', effect: 'NoSchedule' }]);
    expect(withPressureTaints(tainted!, [condition('MemoryPressure', 'True'), condition('PIDPressure', 'True')])).toBeUndefined();
    expect(withPressureTaints(tainted!, [condition('MemoryPressure', 'False'), condition('PIDPressure', 'False')])).toEqual([other]);
  });
});
