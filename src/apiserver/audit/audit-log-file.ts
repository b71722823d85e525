import { closeSync, fstatSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

/**
 * Where audit events go: a file (`--audit-log-path`), rotated by size, or standard output (`-`).
 *
 * Lines are gathered and written together once per event-loop turn, one `write` for the lot, so a
 * busy server makes a few system calls per turn rather than one per event. What waits is bounded
 * (`maxPendingBytes`): past it, events are dropped and counted (`dropped`) rather than let the
 * server's memory grow while the disk is stuck, and the first drop is reported through `onDrop`.
 *
 * Rotation, when `maxSizeMegabytes` > 0: before a write would pass the size, the file is renamed
 * `<name>-<UTC time>.<ext>` (`audit-2024-01-02T15-04-05.000.log`) and a new one opened; then the
 * rotated files beyond `maxBackups` (newest kept) and those older than `maxAgeDays` are removed.
 */
export interface AuditLogFileOptions {
  /** A file path, or `-` for standard output. */
  readonly path: string;
  readonly maxSizeMegabytes?: number | undefined;
  readonly maxBackups?: number | undefined;
  readonly maxAgeDays?: number | undefined;
  readonly maxPendingBytes?: number | undefined;
  readonly onDrop?: ((dropped: number) => void) | undefined;
}

const DEFAULT_MAX_PENDING = 16 * 1024 * 1024;

export class AuditLogFile {
  readonly #options: AuditLogFileOptions;
  #fd: number | undefined;
  #size = 0;
  #pending: string[] = [];
  #pendingBytes = 0;
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;
  /** Events dropped because too much was waiting to be written. */
  dropped = 0;

  constructor(options: AuditLogFileOptions) {
    this.#options = options;
    if (options.path !== '-') this.#open();
  }

  #open(): void {
    this.#fd = openSync(this.#options.path, 'a', 0o600);
    this.#size = fstatSync(this.#fd).size;
  }

  /** Queues one line (without its newline). */
  write(line: string): void {
    if (this.#closed) return;
    if (this.#pendingBytes + line.length > (this.#options.maxPendingBytes ?? DEFAULT_MAX_PENDING)) {
      if (this.dropped++ === 0) this.#options.onDrop?.(this.dropped);
      return;
    }
    this.#pending.push(line);
    this.#pendingBytes += line.length + 1;
    this.#scheduled ??= setImmediate(() => this.flush());
  }

  /** Writes what is queued now. */
  flush(): void {
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join('\n') + '\n';
    this.#pending = [];
    this.#pendingBytes = 0;
    if (this.#fd === undefined) {
      process.stdout.write(text);
      return;
    }
    const bytes = Buffer.from(text);
    const max = (this.#options.maxSizeMegabytes ?? 0) * 1024 * 1024;
    if (max > 0 && this.#size > 0 && this.#size + bytes.length > max) this.#rotate();
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written);
    this.#size += bytes.length;
  }

  #rotate(): void {
    const path = this.#options.path;
    closeSync(this.#fd!);
    const ext = extname(path);
    const stem = basename(path, ext);
    const stamp = new Date().toISOString().replace(/:/g, '-').replace('Z', '');
    renameSync(path, join(dirname(path), `${stem}-${stamp}${ext}`));
    this.#open();
    this.#removeOldBackups(stem, ext);
  }

  #removeOldBackups(stem: string, ext: string): void {
    const dir = dirname(this.#options.path);
    const { maxBackups = 0, maxAgeDays = 0 } = this.#options;
    if (maxBackups === 0 && maxAgeDays === 0) return;
    const pattern = new RegExp(`^${escapeRegExp(stem)}-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}${escapeRegExp(ext)}$`);
    // The stamp sorts as the time it names: newest first.
    const backups = readdirSync(dir).filter((name) => pattern.test(name)).sort().reverse();
    const oldest = Date.now() - maxAgeDays * 24 * 3600 * 1000;
    backups.forEach((name, index) => {
      const file = join(dir, name);
      const tooMany = maxBackups > 0 && index >= maxBackups;
      const tooOld = maxAgeDays > 0 && statSync(file).mtimeMs < oldest;
      if (tooMany || tooOld) unlinkSync(file);
    });
  }

  /** Writes what is queued and closes the file. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
