import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { StatusError } from '../api/index.js';
import { CriClient, IMAGES_DIR_NAME, checkImageArchive, criSnapshotter, importImageArchives, type ImageArchiveKind } from '../nodeagent/index.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, reportFlagError, type CommandIO } from './command.js';
import { renderHelp, type CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags, FlagError, parseFlags } from './flags.js';
import { agentRootDir, containerdSocketPath } from './up-paths.js';

/**
 * `svc image import [--data-dir DIR] FILE...`: loads image archives into the containerd of a
 * running `svc up`, and keeps a copy in the agent's images directory so the next start imports
 * them again (a fresh containerd state, or another machine given the same data dir). Every file
 * is checked before anything is imported: a missing file or one that is not an image archive
 * changes nothing.
 */

export const imageImportFlags = defineFlags({
  'data-dir': flag.string({
    default: './.svc',
    valueName: 'path',
    meaning: "The data directory of the running `svc up`: its containerd socket is <data-dir>/containerd/containerd.sock, the agent's images directory <data-dir>/agent/images.",
    validate: (dir) => (dir === '' ? 'must not be empty' : undefined),
  }),
});

export const imageImportDoc: CommandDoc = {
  name: 'svc image import',
  usage: 'svc image import [--data-dir DIR] FILE...',
  summary:
    "Imports docker-archive (`docker save`) or OCI layout tars into the containerd of the `svc up` running on --data-dir, so pods can use the images without a registry, and copies each file to <data-dir>/agent/images/ so the node agent imports it again at every start. Exits 1 when a file is missing or not an image archive (before importing anything), or when no cluster runs on the data dir.",
  source: 'src/cli/image-command.ts',
};

const IMAGE_USAGE = ['Usage: svc image <command> [flags]', '', 'Commands:', '  import   Import image archives into the running cluster', '', "Run 'svc image <command> --help' for a command's flags."].join('\n');

/** `svc image ...`: dispatches to its subcommands. */
export async function image(argv: readonly string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'import') return imageImport(rest, io);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(IMAGE_USAGE);
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  io.err(`svc image: unknown command ${JSON.stringify(name)}`);
  io.err("Run 'svc image --help' for usage.");
  return EXIT_USAGE;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function imageImport(argv: readonly string[], io: CommandIO): Promise<number> {
  let dataDir: string;
  let files: readonly string[];
  try {
    const parsed = parseFlags(imageImportFlags, argv);
    if (parsed.help) {
      io.out(renderHelp(imageImportDoc, imageImportFlags).trimEnd());
      return EXIT_OK;
    }
    for (const warning of parsed.warnings) io.err(warning);
    if (parsed.args.length === 0) throw new FlagError('no image archive given');
    dataDir = parsed.values.dataDir;
    files = parsed.args;
  } catch (error) {
    if (error instanceof FlagError) return reportFlagError(imageImportDoc, error, io);
    throw error;
  }

  const kinds = new Map<string, ImageArchiveKind>();
  let bad = false;
  for (const file of files) {
    try {
      kinds.set(file, await checkImageArchive(file));
    } catch (error) {
      io.err(`${imageImportDoc.name}: ${message(error)}`);
      bad = true;
    }
  }
  if (bad) return EXIT_FAILED;

  const socket = containerdSocketPath(dataDir);
  if (!existsSync(socket)) {
    io.err(`${imageImportDoc.name}: no cluster running on ${dataDir}: ${socket} does not exist (start one with \`svc up --data-dir ${dataDir}\`)`);
    return EXIT_FAILED;
  }
  const cri = new CriClient({ endpoint: socket, timeoutMs: 10_000 });
  try {
    let snapshotter: string;
    try {
      snapshotter = await criSnapshotter(cri);
    } catch (error) {
      io.err(`${imageImportDoc.name}: no cluster running on ${dataDir}: containerd at ${socket} does not answer: ${message(error)}`);
      return EXIT_FAILED;
    }
    const keepDir = join(agentRootDir(dataDir), IMAGES_DIR_NAME);
    await mkdir(keepDir, { recursive: true });
    let failed = false;
    for (const result of await importImageArchives(files, { address: socket, snapshotter })) {
      if (!result.imported) {
        io.err(`${imageImportDoc.name}: ${result.error.message}`);
        failed = true;
        continue;
      }
      try {
        await keepCopy(result.file, keepDir);
      } catch (error) {
        io.err(`${imageImportDoc.name}: imported ${result.file} but could not keep a copy in ${keepDir}: ${message(error)}`);
        failed = true;
        continue;
      }
      io.out(`imported ${result.file} (${kinds.get(result.file) ?? result.kind})`);
    }
    return failed ? EXIT_FAILED : EXIT_OK;
  } finally {
    cri.close();
  }
}

/** Copies under a dot name first, then renames: the agent skips dot files, so it never imports half a copy. */
async function keepCopy(file: string, dir: string): Promise<void> {
  const target = join(dir, basename(file));
  const partial = join(dir, `.${basename(file)}.${process.pid}.tmp`);
  try {
    await copyFile(file, partial);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error instanceof StatusError ? error : new StatusError({ reason: 'InternalError', message: message(error), cause: error });
  }
}
