import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/**
 * svc-controller-manager's `--config` file: what does not fit a command line well. For now the
 * controller modules (docs/controller-manager.md#your-own-controllers):
 *
 * ```yaml
 * apiVersion: controllermanager.config.svc.io/v1alpha1
 * kind: ControllerManagerConfiguration
 * controllerModules:
 *   - ./widgets.js           # relative to this file
 *   - @example/controllers   # a package
 * ```
 */

export const CONTROLLER_MANAGER_CONFIG_API_VERSION = 'controllermanager.config.svc.io/v1alpha1';

const configFileSchema = z.strictObject({
  apiVersion: z.literal(CONTROLLER_MANAGER_CONFIG_API_VERSION),
  kind: z.literal('ControllerManagerConfiguration'),
  controllerModules: z.array(z.string().min(1)).optional(),
});

export type ControllerManagerConfigFile = z.infer<typeof configFileSchema>;

/** A module to load and the directory its relative path is relative to. */
export interface ModuleSpec {
  readonly spec: string;
  readonly base: string;
}

/** Reads and checks the file; throws `Error` naming the file and what is wrong. */
export async function readControllerManagerConfigFile(path: string): Promise<{ readonly controllerModules: readonly ModuleSpec[] }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`--config: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    throw new Error(`--config: ${path} is not YAML or JSON: ${(error as Error).message}`);
  }
  const result = configFileSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`--config: ${path}: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  const base = dirname(resolve(path));
  return { controllerModules: (result.data.controllerModules ?? []).map((spec) => ({ spec, base })) };
}
