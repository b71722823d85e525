import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { FlowControl } from './flowcontrol/index.js';
import type { LongRunningTracker } from './metrics/index.js';
import { requestKindOf } from './request-kind.js';
import type { TurnBudget } from './turn-budget.js';

/** Lets an authenticated request go on (`done()`), later, or not at all (`done(429)`). */
export type RequestGate = (request: FastifyRequest, reply: FastifyReply, path: string, done: HookHandlerDoneFunction) => void;

/**
 * What every authenticated request passes once authentication has found its user: it is sorted
 * into its kind, a long-running one is gauged for the metrics, and the others start within the
 * loop turn's budget (turn-budget.ts) or in a later turn, where flow control admits, queues or
 * refuses them. Called by the authentication hook itself rather than installed as a hook of
 * its own: on a GET each Fastify hook run is a measurable share of the server's CPU.
 */
export function requestGate(app: FastifyInstance, flowControl: FlowControl, trackLongRunning: LongRunningTracker, turns: TurnBudget): RequestGate {
  app.decorateRequest('requestKind', 'readOnly');
  app.decorateRequest('requestInfo', undefined);
  return (request, reply, path, done) => {
    const kind = requestKindOf(request.method, path, request.query);
    request.requestKind = kind;
    // A long-running request (a watch, exec) starts at once: it is the reader the budget is for.
    if (kind !== 'longRunning') {
      if (turns.startsNow()) return flowControl.admit(kind, request, reply, done);
      return turns.later(() => flowControl.admit(kind, request, reply, done));
    }
    trackLongRunning(request, reply);
    done();
  };
}
