import type { KubeObject } from '../meta.js';
import type { WriteStrategy } from '../resource-type.js';

/**
 * A Secret's `stringData` is a write-only convenience (as kube-apiserver's secret strategy):
 * each value is encoded into `data` under the same key, overriding a `data` value there, and the
 * field is never stored, so no read ever shows it.
 */
function foldStringData(object: KubeObject): KubeObject {
  const { stringData, ...rest } = object as KubeObject & { stringData?: Record<string, string>; data?: Record<string, string> };
  if (stringData === undefined) return object;
  const data: Record<string, string> = { ...rest.data };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return { ...rest, data } as KubeObject;
}

export const secretStrategy: WriteStrategy = {
  prepareForCreate: foldStringData,
  prepareForUpdate: (next) => foldStringData(next),
};
