/**
 * Makes sure a container's image is on the node before the container is created: the pull
 * policy, pull secrets, serialized or parallel pulls under the registry rate limit, and a pull
 * back-off per pod and image. Failures are StatusErrors whose reason is the container's waiting
 * reason, so a pod worker copies `error.reason` and `error.message` into `state.waiting`.
 */
import { StatusError, type Container, type Pod, type Secret } from '../../api/index.js';
import { isCriError, type CriClient } from '../cri/index.js';
import type * as T from '../cri/index.js';
import type { RegistryConfig } from '../cri/index.js';
import type { InvolvedObject } from '../../client/index.js';
import { parseImageName, type ImageName } from './image-name.js';
import { ImagePuller } from './image-puller.js';
import { PullBackOff } from './pull-backoff.js';
import { effectivePullPolicy, type PullPolicy } from './pull-policy.js';
import { credentialsForImage } from './pull-secrets.js';
import { rewriteImage } from './image-rewrite.js';
import type { CredentialProviders } from './credential-providers.js';

/** The registry of svc's locally built images (`svc.local/busybox`): it exists on no network. */
export const LOCAL_REGISTRY = 'svc.local';

/** What the manager needs of an EventRecorder (which satisfies it). */
export interface ImageEventSink {
  record(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** An event's object: the recorder copies every field, so the container's `fieldPath` reaches the Event. */
type ContainerReference = InvolvedObject & { readonly fieldPath: string };

export interface ImageManagerOptions {
  readonly cri: CriClient;
  /** `--serialize-image-pulls`. */
  readonly serializeImagePulls: boolean;
  /** `--registry-qps`: pulls per second, 0 unlimited. */
  readonly registryQps: number;
  /** `--registry-burst`. */
  readonly registryBurst: number;
  readonly events?: ImageEventSink | undefined;
  /** The clock of the back-off and the registry bucket (ms since the epoch); default `Date.now`. */
  readonly now?: (() => number) | undefined;
  /** The wait for a registry token; default a timer (tests pass their own). */
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
  /** The node's registries.yaml: its mirrors' rewrites are applied to pulls (`rewriteImage`). */
  readonly registries?: RegistryConfig | undefined;
  /** `--image-credential-provider-config`'s plugins: their credentials follow the pull secrets'. */
  readonly credentialProviders?: Pick<CredentialProviders, 'lookup'> | undefined;
}

export interface EnsuredImage {
  /** What to create the container with: the runtime's id of the image (`sha256:…`). */
  readonly imageRef: string;
}

function containerReference(pod: Pod, container: Container): ContainerReference {
  const list = pod.spec?.initContainers?.some((c) => c.name === container.name) ? 'initContainers' : 'containers';
  return { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace, uid: pod.metadata.uid, fieldPath: `spec.${list}{${container.name}}` };
}

export class ImageManager {
  readonly #cri: CriClient;
  readonly #events: ImageEventSink | undefined;
  readonly #puller: ImagePuller;
  readonly #backOff: PullBackOff;
  readonly #registries: RegistryConfig | undefined;
  readonly #credentialProviders: Pick<CredentialProviders, 'lookup'> | undefined;

  constructor(options: ImageManagerOptions) {
    this.#cri = options.cri;
    this.#registries = options.registries;
    this.#credentialProviders = options.credentialProviders;
    this.#events = options.events;
    this.#puller = new ImagePuller({
      cri: options.cri,
      serialize: options.serializeImagePulls,
      qps: options.registryQps,
      burst: options.registryBurst,
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
    this.#backOff = new PullBackOff({ now: options.now });
  }

  /**
   * Honours imagePullPolicy (default Always for :latest/no tag, else IfNotPresent) and the pull
   * back-off. Throws a StatusError whose reason is ErrImagePull, ImagePullBackOff,
   * ErrImageNeverPull or InvalidImageName.
   */
  async ensureImage(pod: Pod, container: Container, pullSecrets: readonly Secret[]): Promise<EnsuredImage> {
    const involved = containerReference(pod, container);
    let name: ImageName;
    try {
      name = parseImageName(container.image);
    } catch (error) {
      if (error instanceof StatusError) this.#events?.record(involved, 'Warning', 'InspectFailed', error.message);
      throw error;
    }
    const policy = this.#policy(container, name);
    const spec: T.Input<T.ImageSpec> = { image: name.reference, userSpecifiedImage: container.image };
    // A rewritten image is pulled, and so stored, under its rewritten name.
    const rewritten = rewriteImage(name, this.#registries);
    const pullSpec: T.Input<T.ImageSpec> = rewritten ? { image: rewritten.reference, userSpecifiedImage: container.image } : spec;

    if (policy !== 'Always') {
      const present = (await this.#presentImage(spec)) ?? (rewritten ? await this.#presentImage(pullSpec) : null);
      if (present) {
        this.#events?.record(involved, 'Normal', 'Pulled', `Container image "${container.image}" already present on machine`);
        return { imageRef: present.id };
      }
      if (policy === 'Never') {
        const message = `Container image "${container.image}" is not present with pull policy of Never`;
        this.#events?.record(involved, 'Warning', 'ErrImageNeverPull', message);
        throw new StatusError({ reason: 'ErrImageNeverPull', message });
      }
    }

    const key = `${pod.metadata.uid ?? ''}_${name.reference}`;
    const waitMs = this.#backOff.remainingMs(key);
    if (waitMs > 0) {
      const message = `Back-off pulling image "${container.image}"`;
      this.#events?.record(involved, 'Normal', 'BackOff', message);
      throw new StatusError({ reason: 'ImagePullBackOff', message, details: { retryAfterSeconds: Math.ceil(waitMs / 1000) } });
    }

    this.#events?.record(involved, 'Normal', 'Pulling', `Pulling image "${container.image}"`);
    const started = Date.now();
    try {
      const imageRef = await this.#pull(name, pullSpec, pullSecrets);
      this.#backOff.succeeded(key);
      const size = await this.#presentImage({ image: imageRef }).then((image) => image?.size, () => undefined);
      const seconds = ((Date.now() - started) / 1000).toFixed(3);
      this.#events?.record(involved, 'Normal', 'Pulled', `Successfully pulled image "${container.image}" in ${seconds}s${size === undefined ? '' : `. Image size: ${size.toString()} bytes`}`);
      return { imageRef };
    } catch (error) {
      this.#backOff.failed(key);
      const why = isCriError(error) ? error.message : error instanceof Error ? error.message : String(error);
      const message = `failed to pull image "${container.image}": ${why}`;
      this.#events?.record(involved, 'Warning', 'Failed', `Failed to pull image "${container.image}": ${why}`);
      throw new StatusError({ reason: 'ErrImagePull', message, cause: error });
    }
  }

  /** Forgets the pull back-off of a pod that is gone. */
  forgetPod(podUid: string): void {
    this.#backOff.forget(`${podUid}_`);
  }

  /**
   * svc.local images come only from archives (`<root-dir>/images/`, `svc image import`): there is
   * no registry to re-check them against, so Always behaves as IfNotPresent for them.
   */
  #policy(container: Container, name: ImageName): PullPolicy {
    const policy = effectivePullPolicy(container, name);
    return policy === 'Always' && name.registry === LOCAL_REGISTRY ? 'IfNotPresent' : policy;
  }

  async #presentImage(spec: T.Input<T.ImageSpec>): Promise<T.Image | null> {
    try {
      return (await this.#cri.imageStatus({ image: spec })).image;
    } catch (error) {
      throw new StatusError({ reason: 'ErrImagePull', message: `failed to inspect image "${spec.image ?? ''}": ${error instanceof Error ? error.message : String(error)}`, cause: error });
    }
  }

  async #pull(name: ImageName, spec: T.Input<T.ImageSpec>, pullSecrets: readonly Secret[]): Promise<string> {
    if (name.registry === LOCAL_REGISTRY) {
      throw new StatusError({
        reason: 'ErrImagePull',
        message: `${LOCAL_REGISTRY} images are never pulled: import the archive with \`svc image import\` or put it in the agent's images directory`,
      });
    }
    // The kubelet's order: the pod's pull secrets, then the node's credentials (the plugins').
    const fromPlugins = this.#credentialProviders ? await this.#credentialProviders.lookup(name) : [];
    return this.#puller.pull(spec, [...credentialsForImage(name, pullSecrets), ...fromPlugins]);
  }
}
