/**
 * The machine's identity as the kubelet reports it in `status.nodeInfo`: the firmware's system
 * UUID, systemd's machine id, the kernel's boot id, the kernel release and the OS name. Read from
 * files under `root` (`/` on a real host), so the fallbacks can be shown with real files.
 *
 * Every field is a string, never absent: generated clients (Python's among them) refuse a Node
 * whose `nodeInfo` lacks `systemUUID`, `machineID` or `bootID`, as Kubernetes always writes them.
 */
import { readFileSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';

export interface SystemIdentity {
  /** DMI product UUID (or the device tree's system id); machineID as a UUID where firmware has none. */
  readonly systemUUID: string;
  readonly machineID: string;
  /** Changes with every boot: a Node whose bootID changed was rebooted. */
  readonly bootID: string;
  readonly kernelVersion: string;
  /** PRETTY_NAME of os-release. */
  readonly osImage: string;
}

/**
 * Where the firmware's UUID is, in the order cadvisor (the kubelet's machine info) reads them:
 * DMI on x86 and most arm64 servers (readable by root only), the device tree on POWER.
 */
const SYSTEM_UUID_FILES = ['sys/class/dmi/id/product_uuid', 'proc/device-tree/system-id', 'proc/device-tree/vm,uuid'];

/** systemd's file first, then the D-Bus copy older systems keep. */
const MACHINE_ID_FILES = ['etc/machine-id', 'var/lib/dbus/machine-id'];

const OS_RELEASE_FILES = ['etc/os-release', 'usr/lib/os-release'];

function readFirst(root: string, paths: readonly string[]): string {
  for (const path of paths) {
    try {
      // The device tree's strings end in NUL.
      const text = readFileSync(join(root, path), 'utf8').replace(/\0+$/, '').trim();
      if (text) return text;
    } catch {
      // absent or unreadable (DMI needs root): try the next one
    }
  }
  return '';
}

/** A 32-hex-digit machine id written as a UUID (8-4-4-4-12); anything else as it is. */
export function machineIdAsUuid(machineID: string): string {
  const hex = machineID.toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return machineID;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function prettyName(text: string): string {
  const match = /^PRETTY_NAME=(?:"([^"]*)"|'([^']*)'|(.*))$/m.exec(text);
  return (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim() || 'Linux';
}

/**
 * Reads the identity under `root`. Fallbacks: no firmware UUID (a container, a VM without DMI,
 * an unprivileged agent) → the machine id as a UUID, so the field still names this machine;
 * neither → ''. No os-release → `Linux`.
 */
export function readSystemIdentity(root = '/', kernelVersion: string = release()): SystemIdentity {
  const machineID = readFirst(root, MACHINE_ID_FILES);
  const firmware = readFirst(root, SYSTEM_UUID_FILES);
  return {
    systemUUID: firmware || machineIdAsUuid(machineID),
    machineID,
    bootID: readFirst(root, ['proc/sys/kernel/random/boot_id']),
    kernelVersion,
    osImage: prettyName(readFirst(root, OS_RELEASE_FILES)),
  };
}
