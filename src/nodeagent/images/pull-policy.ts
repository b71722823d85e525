import type { Container } from '../../api/index.js';
import type { ImageName } from './image-name.js';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/**
 * The container's `imagePullPolicy`, or the API's default for it when unset: Always for an image
 * without a tag (and without a digest) or tagged `latest`, IfNotPresent otherwise — a moving tag
 * is re-checked on every start, a fixed one is pulled once.
 */
export function effectivePullPolicy(container: Pick<Container, 'imagePullPolicy'>, name: ImageName): PullPolicy {
  if (container.imagePullPolicy) return container.imagePullPolicy;
  if (name.tag === 'latest' || (name.tag === undefined && name.digest === undefined)) return 'Always';
  return 'IfNotPresent';
}
