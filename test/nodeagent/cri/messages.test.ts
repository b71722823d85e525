// The CRI message types are generated from the embedded proto (scripts/gen-cri-types.ts): the
// checked-in file must be what the generator makes from the proto as it is now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CRI_MESSAGES_FILE, renderCriMessages } from '../../../scripts/gen-cri-types.js';
import { CRI_PROTO } from '../../../src/nodeagent/cri/api-proto.js';

describe('CRI message types', () => {
  it('src/nodeagent/cri/messages.ts is up to date with the proto (run npm run gen:cri)', () => {
    expect(readFileSync(CRI_MESSAGES_FILE, 'utf8')).toBe(renderCriMessages(CRI_PROTO));
  });

  it('has one type per message and enum of the proto, nested enums named after their message', () => {
    const generated = renderCriMessages(CRI_PROTO);
    const messages = [...CRI_PROTO.matchAll(/^\s*message (\w+)/gm)].map((m) => m[1]!);
    const declared = new Set([...generated.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!));
    expect(messages.filter((name) => !declared.has(name))).toEqual([]);
    expect(generated).toContain("export type SecurityProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';");
    expect(generated).toMatch(/export interface StopContainerRequest \{\n {2}containerId: string;\n.*\n {2}timeout: bigint;\n\}/);
  });
});
