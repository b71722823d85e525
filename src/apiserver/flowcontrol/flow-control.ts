import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { tooManyRequests } from '../../api/index.js';
import { PRIVILEGED_GROUP } from '../authz/index.js';
import { FairQueues, type RejectReason } from './fair-queues.js';

/**
 * Overload protection: kube-apiserver's max-in-flight limits with API Priority and Fairness'
 * promise that one client cannot starve the others.
 *
 * Read-only and mutating requests each have their own seats (`--max-requests-inflight`,
 * `--max-mutating-requests-inflight`); a request that finds them taken waits in the queue of its
 * flow (its user name) and the seats go round the flows in turn (fair-queues.ts). A flow whose
 * queue is full, or a request that waited `queueWaitMs`, is answered 429 TooManyRequests with
 * `Retry-After: 1`, and changes nothing. Exempt, as upstream's `exempt` and `probes` priority
 * levels are: members of system:masters, the health checks (they carry no user) and long-running
 * requests (watches, exec, attach, port-forward, logs, proxy), which would otherwise hold a
 * seat for their whole life.
 */

export interface FlowControlOptions {
  /** Read-only requests served at once (default 400; 0: no limit). */
  readonly maxRequestsInflight?: number | undefined;
  /** Mutating requests served at once (default 200; 0: no limit). */
  readonly maxMutatingRequestsInflight?: number | undefined;
  /** Requests one user may have waiting per kind before the next is refused (default 50). */
  readonly queueLengthPerFlow?: number | undefined;
  /** How long a request may wait for a seat before it is refused (default 15 s). */
  readonly queueWaitMs?: number | undefined;
}

export const DEFAULT_FLOW_CONTROL = {
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  queueLengthPerFlow: 50,
  queueWaitMs: 15_000,
} as const;

const RETRY_AFTER_SECONDS = 1;

type CountedKind = 'readOnly' | 'mutating';

/** The limits of one server. `admit` is called by the request gate (request-gate.ts) for every counted request. */
export class FlowControl {
  readonly #readOnly: FairQueues | undefined;
  readonly #mutating: FairQueues | undefined;
  /** Called once per refused request (the metrics count them). */
  onReject: ((kind: CountedKind, reason: RejectReason) => void) | undefined;

  constructor(options: FlowControlOptions = {}) {
    const settings = { ...DEFAULT_FLOW_CONTROL, ...definedOnly(options) };
    const queuesOf = (seats: number, kind: CountedKind): FairQueues | undefined => {
      if (seats === 0) return undefined;
      const queues = new FairQueues({ seats, queueLength: settings.queueLengthPerFlow, queueWaitMs: settings.queueWaitMs });
      queues.onReject = (reason) => this.onReject?.(kind, reason);
      return queues;
    };
    this.#readOnly = queuesOf(settings.maxRequestsInflight, 'readOnly');
    this.#mutating = queuesOf(settings.maxMutatingRequestsInflight, 'mutating');
  }

  /** `apiserver_current_inflight_requests{request_kind}`: seats held now (0 when that kind is unlimited). */
  inflight(kind: CountedKind): number {
    return (kind === 'mutating' ? this.#mutating : this.#readOnly)?.busy ?? 0;
  }

  /** Requests waiting for a seat. */
  waiting(kind: CountedKind): number {
    return (kind === 'mutating' ? this.#mutating : this.#readOnly)?.waiting ?? 0;
  }

  /**
   * Lets a request of `kind` go on (`done()`) now or once it gets a seat, or refuses it
   * (`done(429)`). Its seat is given back when its response closes.
   */
  admit(kind: CountedKind, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const queues = kind === 'mutating' ? this.#mutating : this.#readOnly;
    const user = request.user;
    if (queues === undefined || user === undefined || user.groups.includes(PRIVILEGED_GROUP)) return done();
    if (queues.tryAdmit()) {
      reply.raw.on('close', queues.release);
      return done();
    }
    const queued = queues.enqueue(user.name, {
      admit: () => admitQueued(request, reply, queues, done),
      reject: () => reject(done),
    });
    if (!queued) reject(done);
  }
}

function reject(done: HookHandlerDoneFunction): void {
  done(tooManyRequests('Too many requests, please try again later.', RETRY_AFTER_SECONDS));
}

/** A queued request got a seat: it goes on, unless its client left while it waited. */
function admitQueued(request: FastifyRequest, reply: FastifyReply, queues: FairQueues, done: HookHandlerDoneFunction): boolean {
  if (request.raw.socket?.destroyed === true || reply.raw.destroyed) return false;
  // The seat is given back when the response ends, whatever ends it.
  reply.raw.on('close', queues.release);
  done();
  return true;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
