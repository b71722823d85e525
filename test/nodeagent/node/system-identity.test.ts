// nodeInfo's identity fields read from a machine's files, with their fallbacks, on real files
// laid out under a scratch root the way a host, a VM without DMI or a POWER machine has them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { machineIdAsUuid, readSystemIdentity } from '../../../src/nodeagent/index.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function machine(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-identity-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const MACHINE_ID = '3d1219c7c4c5404aaa1f6d2a48adfda4\n';
const BOOT_ID = 'f48585f6-dd0a-4ec2-96fc-7e882250fabe\n';

describe('the node\'s system identity', () => {
  it('reports the DMI product UUID, the machine id, the boot id and PRETTY_NAME where a machine has them', () => {
    const root = machine({
      'sys/class/dmi/id/product_uuid': 'EC2A1B3C-1111-2222-3333-444455556666\n',
      'etc/machine-id': MACHINE_ID,
      'proc/sys/kernel/random/boot_id': BOOT_ID,
      'etc/os-release': 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n',
    });
    expect(readSystemIdentity(root, '6.1.0-test')).toEqual({
      systemUUID: 'EC2A1B3C-1111-2222-3333-444455556666',
      machineID: '3d1219c7c4c5404aaa1f6d2a48adfda4',
      bootID: 'f48585f6-dd0a-4ec2-96fc-7e882250fabe',
      kernelVersion: '6.1.0-test',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
    });
  });

  it('falls back to the device tree\'s system id (POWER), NUL-terminated as the kernel writes it', () => {
    const root = machine({ 'proc/device-tree/system-id': 'IBM,0278B1234\0', 'etc/machine-id': MACHINE_ID });
    expect(readSystemIdentity(root).systemUUID).toBe('IBM,0278B1234');
  });

  it('without firmware UUID (a VM without DMI, a container) writes the machine id as a UUID; D-Bus\'s copy of the machine id counts', () => {
    const root = machine({ 'var/lib/dbus/machine-id': MACHINE_ID, 'usr/lib/os-release': "PRETTY_NAME='Alpine Linux v3.20'\n" });
    const identity = readSystemIdentity(root);
    expect(identity.machineID).toBe('3d1219c7c4c5404aaa1f6d2a48adfda4');
    expect(identity.systemUUID).toBe('3d1219c7-c4c5-404a-aa1f-6d2a48adfda4');
    expect(identity.osImage).toBe('Alpine Linux v3.20');
    // An empty DMI file is no UUID either.
    expect(readSystemIdentity(machine({ 'sys/class/dmi/id/product_uuid': '\n', 'etc/machine-id': MACHINE_ID })).systemUUID).toBe('3d1219c7-c4c5-404a-aa1f-6d2a48adfda4');
  });

  it('has every field, empty, on a machine with none of the files, and names the OS Linux', () => {
    expect(readSystemIdentity(machine({}), '6.1.0')).toEqual({ systemUUID: '', machineID: '', bootID: '', kernelVersion: '6.1.0', osImage: 'Linux' });
  });

  it('writes only a 32-hex-digit machine id as a UUID', () => {
    expect(machineIdAsUuid('ABCDEF0123456789ABCDEF0123456789')).toBe('abcdef01-2345-6789-abcd-ef0123456789');
    expect(machineIdAsUuid('not-a-machine-id')).toBe('not-a-machine-id');
  });
});
