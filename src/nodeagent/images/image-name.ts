/**
 * Image references as a container runtime resolves them: `busybox` means
 * `docker.io/library/busybox:latest`. The agent needs the parsed form for three things: the pull
 * policy default (a missing or `latest` tag means Always), the registry a pull secret must match,
 * and a canonical name to key pull back-off by, so `busybox` and `docker.io/library/busybox:latest`
 * share one back-off.
 */
import { StatusError } from '../../api/index.js';

export const DEFAULT_REGISTRY = 'docker.io';
const LEGACY_DEFAULT_REGISTRY = 'index.docker.io';
const OFFICIAL_REPOSITORY_PREFIX = 'library/';
const MAX_NAME_LENGTH = 255;

// The distribution reference grammar: lowercase path components separated by `.`, `_`, `__` or
// runs of `-`; a domain of DNS labels (or a bracketed IPv6 address) with an optional port.
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;

export interface ImageName {
  /** Registry host (and port): `docker.io`, `svc.local`, `localhost:5000`. */
  readonly registry: string;
  /** Repository path within the registry: `library/busybox`. */
  readonly repository: string;
  /** The tag as written, if any (`latest` is not filled in here). */
  readonly tag: string | undefined;
  /** `sha256:…` when the reference pins a digest. */
  readonly digest: string | undefined;
  /** The fully qualified reference a runtime resolves the name to; `:latest` added when neither tag nor digest is given. */
  readonly reference: string;
}

function invalid(image: string, why: string): StatusError {
  return new StatusError({ reason: 'InvalidImageName', message: `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${why}` });
}

/** Parses and normalizes an image reference; throws a StatusError with reason `InvalidImageName`. */
export function parseImageName(image: string): ImageName {
  if (image.length === 0) throw invalid(image, 'repository name must have at least one component');
  if (image !== image.trim()) throw invalid(image, 'invalid reference format');
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalid(image, 'invalid digest format');
  }
  let tag: string | undefined;
  // A colon after the last slash starts the tag; one before it is a registry port.
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw invalid(image, 'invalid reference format');
  }
  if (rest.length === 0) throw invalid(image, 'repository name must have at least one component');
  if (rest.length > MAX_NAME_LENGTH) throw invalid(image, `repository name must not be more than ${MAX_NAME_LENGTH} characters`);

  let registry = DEFAULT_REGISTRY;
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    // As Docker decides: the first component is a registry if it looks like a host.
    if (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase()) {
      if (!DOMAIN.test(first)) throw invalid(image, 'invalid reference format');
      registry = first === LEGACY_DEFAULT_REGISTRY ? DEFAULT_REGISTRY : first;
      path = rest.slice(slash + 1);
    }
  }
  const components = path.split('/');
  for (const component of components) {
    if (!PATH_COMPONENT.test(component)) {
      throw invalid(image, component !== component.toLowerCase() ? 'repository name must be lowercase' : 'invalid reference format');
    }
  }
  if (registry === DEFAULT_REGISTRY && components.length === 1) path = OFFICIAL_REPOSITORY_PREFIX + path;
  const reference = `${registry}/${path}${tag !== undefined ? `:${tag}` : digest === undefined ? ':latest' : ''}${digest !== undefined ? `@${digest}` : ''}`;
  return { registry, repository: path, tag, digest, reference };
}
