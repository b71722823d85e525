import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { isCustomResource, type CustomResource, type CustomObject } from '../client/index.js';
import { EXIT_FAILED, EXIT_OK, reportFlagError, type CommandIO } from './command.js';
import { renderHelp, type CommandDoc } from './flag-docs.js';
import { defineFlags, FlagError, parseFlags } from './flags.js';

/**
 * `svc crd <module>[#export]`: prints the CustomResourceDefinitions a module defines with
 * `defineCustomResource`, as YAML for `kubectl apply -f -`. Without `#export`, every definition
 * the module exports is printed, one YAML document each, in export order.
 */

export const crdFlags = defineFlags({});

export const crdDoc: CommandDoc = {
  name: 'svc crd',
  usage: 'svc crd MODULE[#EXPORT]',
  summary:
    'Prints, as YAML, the CustomResourceDefinition of each custom resource MODULE exports (made with defineCustomResource from svc/client), or only of the export EXPORT. MODULE is a path to a JavaScript module (a TypeScript one when node runs with a loader such as tsx). Pipe it to `kubectl apply -f -`. Exits 1 when the module cannot be loaded or defines no such resource.',
  source: 'src/cli/crd-command.ts',
};

type AnyCustomResource = CustomResource<CustomObject<unknown, unknown>>;

export async function crd(argv: readonly string[], io: CommandIO): Promise<number> {
  let target: string;
  try {
    const parsed = parseFlags(crdFlags, argv);
    if (parsed.help) {
      io.out(renderHelp(crdDoc, crdFlags).trimEnd());
      return EXIT_OK;
    }
    if (parsed.args.length !== 1) throw new FlagError(parsed.args.length === 0 ? 'no module given' : `unexpected argument ${JSON.stringify(parsed.args[1])}`);
    target = parsed.args[0]!;
  } catch (error) {
    if (error instanceof FlagError) return reportFlagError(crdDoc, error, io);
    throw error;
  }

  const hash = target.lastIndexOf('#');
  const modulePath = hash < 0 ? target : target.slice(0, hash);
  const exportName = hash < 0 ? undefined : target.slice(hash + 1);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(resolve(modulePath)).href)) as Record<string, unknown>;
  } catch (error) {
    io.err(`${crdDoc.name}: cannot load ${modulePath}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_FAILED;
  }

  let found: AnyCustomResource[];
  if (exportName !== undefined) {
    const value = Object.hasOwn(exports, exportName) ? exports[exportName] : undefined;
    if (!isCustomResource(value)) {
      io.err(`${crdDoc.name}: ${modulePath} has no export ${JSON.stringify(exportName)} made with defineCustomResource`);
      return EXIT_FAILED;
    }
    found = [value];
  } else {
    found = Object.values(exports).filter(isCustomResource);
    if (found.length === 0) {
      io.err(`${crdDoc.name}: ${modulePath} exports no custom resource made with defineCustomResource`);
      return EXIT_FAILED;
    }
  }
  io.out(found.map((resource) => toYaml(resource.definition).trimEnd()).join('\n---\n'));
  return EXIT_OK;
}
