import { describe, expect, expectTypeOf, it } from 'vitest';
import { resolveNodeAgentOptions } from '../../../src/cli/nodeagent-config.js';
import type { NodeAgentFlags } from '../../../src/cli/nodeagent-flags.js';
import { nodeStatusDefaults, type NodeStatusOptions } from '../../../src/nodeagent/index.js';

describe('NodeStatusOptions', () => {
  it('is what the daemon parses: its resolved options pass as they are, with the same defaults', () => {
    expectTypeOf<NodeAgentFlags>().toExtend<NodeStatusOptions>();
    const values: NodeStatusOptions = resolveNodeAgentOptions([]).values;
    for (const key of Object.keys(nodeStatusDefaults) as (keyof NodeStatusOptions)[]) expect(values[key], key).toEqual(nodeStatusDefaults[key]);
  });
});
