/**
 * A mirror's repository rewrites (registries.yaml `mirrors.<registry>.rewrite`), applied by the
 * agent because containerd 1.6 has none: a pull of `docker.io/rancher/coredns:1.6.3` under
 * `"^rancher/(.*)": "mirrorproject/rancher-images/$1"` asks for
 * `docker.io/mirrorproject/rancher-images/coredns:1.6.3`, which containerd resolves through the
 * registry's hosts.toml — at its mirror endpoints first. The first pattern (in file order) that
 * matches the repository path wins; the tag or digest stays.
 */
import type { RegistryConfig } from '../cri/index.js';
import { parseImageName, type ImageName } from './image-name.js';

/** The name to pull instead of `name`, or undefined when no rewrite of a mirror with endpoints applies. */
export function rewriteImage(name: ImageName, registries: RegistryConfig | undefined): ImageName | undefined {
  const mirror = registries?.mirrors?.[name.registry];
  if (!mirror?.rewrite || (mirror.endpoint?.length ?? 0) === 0) return undefined;
  for (const [pattern, replacement] of Object.entries(mirror.rewrite)) {
    const re = new RegExp(pattern);
    if (!re.test(name.repository)) continue;
    const repository = name.repository.replace(re, replacement);
    if (repository === name.repository) return undefined;
    const suffix = `${name.tag !== undefined ? `:${name.tag}` : name.digest === undefined ? ':latest' : ''}${name.digest !== undefined ? `@${name.digest}` : ''}`;
    // Parsed again so a rewrite that makes no valid name fails as an invalid image name.
    return parseImageName(`${name.registry}/${repository}${suffix}`);
  }
  return undefined;
}
