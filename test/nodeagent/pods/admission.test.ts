/**
 * The pod workers' admission by the resource managers, against a real containerd and API server:
 * a manager that cannot write its checkpoint (the file's place taken by a directory) refuses the
 * pod it had to pin (Failed, UnexpectedAdmissionError) and the workers go on: a pod that needs no
 * CPU of its own still runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMachineTopology, ResourceManagers } from '../../../src/nodeagent/index.js';
import { startVolumesApiServer, type VolumesApiServer } from '../volumes/api-server.js';
import { startContainerd, type RunningContainerd } from '../../support/containerd.js';
import { Agent, BUSYBOX, createPod, eventually, getPod, podOf } from './support.js';

let containerd: RunningContainerd;
let server: VolumesApiServer;
let agent: Agent | undefined;
const stateDir = mkdtempSync('/tmp/svc-admission-');

beforeAll(async () => {
  containerd = await startContainerd();
  server = await startVolumesApiServer();
}, 120_000);

afterAll(async () => {
  agent?.stop();
  await server?.close();
  await containerd?.stop();
  rmSync(stateDir, { recursive: true, force: true });
}, 120_000);

describe('admission by the resource managers', () => {
  it('refuses a pod the CPU manager cannot record, and runs the next pod', async () => {
    const machine = readMachineTopology();
    const managers = new ResourceManagers({
      machine,
      stateDir,
      cpu: { policy: 'static', reserved: { cpus: [machine.cpus[0]!.id] } },
      memory: { policy: 'None', reserved: new Map() },
      topology: { policy: 'none', scope: 'container' },
    });
    // The checkpoint's place is now a directory that is not empty: no file can be renamed over it.
    rmSync(join(stateDir, 'cpu_manager_state'));
    mkdirSync(join(stateDir, 'cpu_manager_state'));
    writeFileSync(join(stateDir, 'cpu_manager_state', 'x'), '');
    agent = new Agent(server, containerd, { resources: managers });
    const resources = { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } };
    await createPod(server, podOf('pinned', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'], resources }], { automountServiceAccountToken: false, terminationGracePeriodSeconds: 1 }));
    const refused = await eventually('pinned refused', async () => {
      const pod = await getPod(server, 'pinned');
      return pod?.status?.phase === 'Failed' ? pod : undefined;
    });
    expect(refused.status).toMatchObject({ reason: 'UnexpectedAdmissionError', message: expect.stringMatching(/^Pod was rejected: Allocate failed due to .*cpu_manager_state.*, which is unexpected$/) });
    await createPod(server, podOf('shared', [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }], { automountServiceAccountToken: false, terminationGracePeriodSeconds: 1 }));
    await eventually('shared Running', async () => ((await getPod(server, 'shared'))?.status?.phase === 'Running' ? true : undefined));
  }, 120_000);
});
