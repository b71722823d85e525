import type { FastifyInstance } from 'fastify';
import type { FlowControl } from './flowcontrol/index.js';
import type { LongRunningTracker } from './metrics/index.js';
import { pathOf, requestKindOf } from './request-kind.js';

/**
 * The one onRequest hook every authenticated request passes after authentication: it sorts the
 * request into its kind, gauges a long-running one for the metrics, and lets flow control admit,
 * queue or refuse the others. One hook rather than three: on a GET each Fastify hook is a
 * measurable share of the server's CPU.
 */
export function installRequestGate(app: FastifyInstance, flowControl: FlowControl, trackLongRunning: LongRunningTracker): void {
  app.decorateRequest('requestKind', 'readOnly');
  app.decorateRequest('requestInfo', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    const kind = requestKindOf(request.method, pathOf(request), request.query);
    request.requestKind = kind;
    if (kind !== 'longRunning') return flowControl.admit(kind, request, reply, done);
    trackLongRunning(request, reply);
    done();
  });
}
