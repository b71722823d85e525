import { Trampoline } from '../storage/index.js';
import type { SequencedEvent } from './events.js';

/** A live watcher, as the hub sees it (an object, not a closure: a watcher is one small instance). */
export interface HubListener<T> {
  /**
   * Set when the watcher can only ever accept objects whose trigger value (the cache's
   * `triggerOf`) is this: the hub then hands it only those events. Fixed for the listener's life.
   */
  readonly trigger?: string | undefined;
  receive(entry: SequencedEvent<T>): void;
}

/**
 * Hands every applied event to every live watcher, in order, through the store fan-out's
 * trampoline (src/storage/trampoline.ts): a watcher that writes from its own callback makes the
 * cache apply (and publish) the next event while this one is still being delivered, and the
 * trampoline keeps every watcher's view in revision order.
 *
 * Listeners must not throw: a throw would abandon the rest of the queue for everyone.
 */
export class Hub<T> {
  /** Listeners without a trigger: every event is theirs to judge. */
  private readonly listeners = new Set<HubListener<T>>();
  /** Listeners by trigger value: an event reaches only those of its object's value (and its previous one's). */
  private readonly triggered = new Map<string, Set<HubListener<T>>>();
  private count = 0;
  private readonly trampoline = new Trampoline<SequencedEvent<T>>((entry) => {
    for (const listener of this.listeners) listener.receive(entry);
    if (this.triggered.size > 0) this.dispatchTriggered(entry);
  });

  /**
   * `triggerOf` is the index kube calls a watch trigger (pods by node name): with a thousand
   * kubelets each watching its own node's pods, an event costs two listener calls, not a thousand.
   */
  constructor(private readonly triggerOf?: (object: T) => string | undefined) {}

  publish(entries: Iterable<SequencedEvent<T>>): void {
    this.trampoline.publish(entries);
  }

  /**
   * Runs `attach` with delivery held back, then delivers what it published. A new watcher replays
   * history and registers inside `attach`, so an event committed meanwhile (say by the new
   * watcher's own callback) reaches it after its replay, never before or twice.
   */
  run(attach: () => void): void {
    this.trampoline.run(attach);
  }

  add(listener: HubListener<T>): void {
    const { trigger } = listener;
    if (trigger === undefined || !this.triggerOf) {
      if (!this.listeners.has(listener)) this.count++;
      this.listeners.add(listener);
      return;
    }
    let set = this.triggered.get(trigger);
    if (!set) this.triggered.set(trigger, (set = new Set()));
    if (!set.has(listener)) this.count++;
    set.add(listener);
  }

  delete(listener: HubListener<T>): void {
    if (this.listeners.delete(listener)) this.count--;
    const { trigger } = listener;
    if (trigger === undefined) return;
    const set = this.triggered.get(trigger);
    if (set?.delete(listener)) {
      this.count--;
      if (set.size === 0) this.triggered.delete(trigger);
    }
  }

  get size(): number {
    return this.count;
  }

  /** The listeners of the object's trigger value, and of its previous version's when that differs (it moved). */
  private dispatchTriggered(entry: SequencedEvent<T>): void {
    const triggerOf = this.triggerOf!;
    const now = triggerOf(entry.event.object.object);
    if (now !== undefined) this.triggered.get(now)?.forEach((listener) => listener.receive(entry));
    const prev = entry.event.prev;
    const before = prev && triggerOf(prev.object);
    if (before !== undefined && before !== now) this.triggered.get(before)?.forEach((listener) => listener.receive(entry));
  }
}
