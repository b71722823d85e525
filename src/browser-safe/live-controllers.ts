/**
 * The shapes of the controller runtime's live stream (`/live/controllers`): what
 * controllers/runtime/loop-activity.ts sends and the dashboard's Controllers view reads. Here,
 * importing nothing, so that the page's browser bundle and its DOM-only type check can hold them.
 */

/** How a reconcile ended: the `type` of the controller's `ControllerResult`. */
export type ReconcileOutcome = 'awaitChange' | 'requeueAfter' | 'retry' | 'terminal';

/** One finished reconcile. */
export interface ReconcileRecord {
  /** The loop it ran in (the name it was started under). */
  readonly loop: string;
  /** The controller's own name (a loop may run several controllers). */
  readonly controller: string;
  readonly key: string;
  readonly outcome: ReconcileOutcome;
  /** How long the reconcile ran, in ms of the queue's clock; absent when the queue reports no times. */
  readonly durationMs?: number;
  /** Runs in a row for this key, counting this one. */
  readonly attempts: number;
  /** For `retry` and `requeueAfter`: when it runs again, in ms. */
  readonly afterMs?: number;
  /** For `retry` and `terminal`: why it failed. */
  readonly error?: string;
  /** Wall-clock time it ended (ms since the epoch). */
  readonly at: number;
}

/** A work queue's counters, per controller name. */
export interface QueueStats {
  readonly name: string;
  readonly depth: number;
  readonly adds: number;
  readonly retries: number;
  readonly results: number;
}

/** The whole runtime at one moment. */
export interface ControllersSnapshot {
  /** The candidate identity in the Lease. */
  readonly identity: string;
  /** `namespace/name` of the Lease, or absent without leader election. */
  readonly lease?: string;
  readonly leading: boolean;
  /** The loops the runtime runs, in start order. */
  readonly loops: readonly string[];
  /** Loops that failed in this term, with why. */
  readonly failed: Readonly<Record<string, string>>;
  readonly queues: readonly QueueStats[];
  readonly at: number;
}

/** An item of the live stream: a snapshot now and then, every result as it comes. */
export type ControllersUpdate = { readonly kind: 'snapshot'; readonly snapshot: ControllersSnapshot } | { readonly kind: 'result'; readonly result: ReconcileRecord };
