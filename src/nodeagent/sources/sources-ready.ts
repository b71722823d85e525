import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import type { PodSourceName } from './pod-update.js';

/**
 * Which of the configured sources have delivered their first complete set (the kubelet's
 * `SeenAllSources`). Until every one has, the agent must not treat a running pod that no source
 * mentions as unwanted: its source may simply not have answered yet.
 */
export class SourcesReadiness {
  readonly #expected: ReadonlySet<PodSourceName>;
  readonly #seen = new Set<PodSourceName>();
  readonly #ready: BehaviorSubject<boolean>;

  /** false until every expected source is seen, then true. */
  readonly ready$: Observable<boolean>;

  constructor(expected: Iterable<PodSourceName>) {
    this.#expected = new Set(expected);
    this.#ready = new BehaviorSubject(this.#expected.size === 0);
    this.ready$ = this.#ready.pipe(distinctUntilChanged());
  }

  get expected(): readonly PodSourceName[] {
    return [...this.#expected];
  }

  /** Records that `source` delivered a complete set. */
  markSeen(source: PodSourceName): void {
    if (this.#seen.has(source)) return;
    this.#seen.add(source);
    if (!this.#ready.value && [...this.#expected].every((name) => this.#seen.has(name))) this.#ready.next(true);
  }

  hasSeen(source: PodSourceName): boolean {
    return this.#seen.has(source);
  }

  allReady(): boolean {
    return this.#ready.value;
  }
}
