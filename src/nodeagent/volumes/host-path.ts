import { mkdir, open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { HostPathType } from './sources.js';

/**
 * The kubelet's hostPath `type` check: `DirectoryOrCreate` and `FileOrCreate` create what is
 * missing (a directory 0755 with its parents; an empty file 0644 whose parent must exist), the
 * other types require an existing path of that kind, `""` checks nothing. Symlinks are followed.
 * Fails with the kubelet's words: `hostPath type check failed: /x is not a directory`.
 */
export async function checkHostPath(path: string, type: HostPathType | undefined): Promise<void> {
  // A relative path would be the agent's working directory's business: never the pod's.
  if (!isAbsolute(path)) throw new Error(`hostPath ${JSON.stringify(path)} must be an absolute path`);
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  switch (type ?? '') {
    case '':
      return;
    case 'DirectoryOrCreate':
      if (!info) {
        await mkdir(path, { recursive: true, mode: 0o755 });
        return;
      }
      return expect(info, path, (s) => s.isDirectory(), 'a directory');
    case 'Directory':
      return expect(info, path, (s) => s.isDirectory(), 'a directory');
    case 'FileOrCreate':
      if (!info) {
        // O_CREAT without O_TRUNC: a file that appears meanwhile is left as it is.
        await (await open(path, 'a', 0o644)).close();
        return;
      }
      return expect(info, path, (s) => s.isFile(), 'a file');
    case 'File':
      return expect(info, path, (s) => s.isFile(), 'a file');
    case 'Socket':
      return expect(info, path, (s) => s.isSocket(), 'a socket file');
    case 'CharDevice':
      return expect(info, path, (s) => s.isCharacterDevice(), 'a character device');
    case 'BlockDevice':
      return expect(info, path, (s) => s.isBlockDevice(), 'a block device');
  }
}

function expect(info: Stats | undefined, path: string, test: (s: Stats) => boolean, what: string): void {
  if (!info || !test(info)) throw new Error(`hostPath type check failed: ${path} is not ${what}`);
}
