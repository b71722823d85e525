import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { decodeCbor, decodeProtobuf } from '../../encoding/index.js';
import { resourceRequestInfo, type RequestInfo } from '../request-info.js';
import { pathOf } from '../request-kind.js';
import { auditUserOf, objectReferenceOf, type AuditEvent, type ResponseStatus } from './audit-event.js';
import { auditEvaluator, type AuditDecision, type AuditPolicy, type AuditStage } from './policy.js';
import { microTime } from '../../api/index.js';
import { auditAnnotationsOf } from './request-annotations.js';

/** Where the event lines go (an `AuditLogFile`). */
export interface AuditSink {
  write(line: string): void;
  close?(): void;
}

export interface AuditOptions {
  readonly policy: AuditPolicy;
  readonly sink: AuditSink;
}

/** One audited request while it runs. */
interface AuditState {
  readonly decision: AuditDecision;
  readonly auditID: string;
  readonly received: number;
  readonly info: RequestInfo | undefined;
  readonly verb: string;
  requestObject?: unknown;
  responseObject?: unknown;
  responseStatus?: ResponseStatus;
  /** The request ended in an unexpected exception (500 InternalError): its last stage is Panic. */
  panicked: boolean;
}

/** The event's annotations: authorization's decision (only a request that got past authentication met it) and admission's. */
function annotationsOf(request: FastifyRequest, status: ResponseStatus | undefined): { annotations?: Record<string, string> } {
  const added = auditAnnotationsOf(request);
  const decided = status !== undefined && request.user !== undefined ? { 'authorization.k8s.io/decision': status.code === 403 ? 'forbid' : 'allow' } : undefined;
  return added === undefined && decided === undefined ? {} : { annotations: { ...decided, ...added } };
}

const LEVEL_RANK = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 } as const;

/**
 * Audits requests as the policy says (see policy.ts for the matching, docs/security.md for the
 * log). Stages: RequestReceived when the request is authenticated and admitted; ResponseStarted
 * when a long-running request sends its head; ResponseComplete when the response ends (or Panic
 * instead, when an unexpected exception ended it). Requests refused by authentication (with an
 * empty user) or by flow control are audited at ResponseComplete only.
 *
 * Call after authentication's hook and the request gate (request-gate.ts), whose kind it reads;
 * requests either refused are audited from onSend. Costs nothing without an audit log: the caller
 * installs nothing then.
 */
export function installAudit(app: FastifyInstance, options: AuditOptions): void {
  const evaluate = auditEvaluator(options.policy);
  const sink = options.sink;
  const states = new WeakMap<FastifyRequest, AuditState>();
  /** Requests the onRequest hook evaluated (a request absent here was refused before it). */
  const seen = new WeakSet<FastifyRequest>();

  const emit = (request: FastifyRequest, state: AuditState, stage: AuditStage, code?: number): void => {
    if (state.decision.omitStages.has(stage)) return;
    const level = state.decision.level as AuditEvent['level'];
    const done = stage === 'ResponseComplete' || stage === 'Panic';
    const status = done || stage === 'ResponseStarted' ? (state.responseStatus ?? { metadata: {}, code: code ?? 0 }) : undefined;
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level,
      auditID: state.auditID,
      stage,
      requestURI: request.url,
      verb: state.verb,
      user: auditUserOf(request.user),
      sourceIPs: sourceIPsOf(request),
      ...(request.headers['user-agent'] !== undefined ? { userAgent: request.headers['user-agent'] } : {}),
      ...(state.info !== undefined ? { objectRef: objectReferenceOf(state.info) } : {}),
      ...(status !== undefined ? { responseStatus: status } : {}),
      ...(state.requestObject !== undefined ? { requestObject: state.requestObject } : {}),
      ...(done && state.responseObject !== undefined ? { responseObject: state.responseObject } : {}),
      requestReceivedTimestamp: microTime(state.received),
      stageTimestamp: microTime(Date.now()),
      ...annotationsOf(request, status),
    };
    sink.write(JSON.stringify(event));
  };

  const begin = (request: FastifyRequest, reply: FastifyReply): AuditState | undefined => {
    const path = pathOf(request);
    const info = resourceRequestInfo(request.method, path, request.query);
    const verb = info?.verb ?? request.method.toLowerCase();
    const user = request.user;
    const decision = evaluate({
      user: user?.name ?? '',
      groups: user?.groups ?? [],
      verb,
      path,
      ...(info !== undefined
        ? { resource: { group: info.group, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name } }
        : {}),
    });
    if (decision.level === 'None') return undefined;
    const given = request.headers['audit-id'];
    const auditID = typeof given === 'string' && given !== '' ? given : randomUUID();
    reply.header('audit-id', auditID);
    const state: AuditState = { decision, auditID, received: Date.now(), info, verb, panicked: false };
    states.set(request, state);
    return state;
  };

  app.addHook('onRequest', (request, reply, done) => {
    seen.add(request);
    const state = begin(request, reply);
    if (state === undefined) return done();
    emit(request, state, 'RequestReceived');
    const raw = reply.raw;
    if (request.requestKind === 'longRunning' && !state.decision.omitStages.has('ResponseStarted')) {
      // A watch writes its head itself (its reply is hijacked): the stage is logged as it does.
      const writeHead = raw.writeHead;
      raw.writeHead = function (this: typeof raw, ...args: unknown[]) {
        raw.writeHead = writeHead;
        const code = typeof args[0] === 'number' ? args[0] : raw.statusCode;
        emit(request, state, 'ResponseStarted', code);
        return (writeHead as (...a: unknown[]) => typeof raw).apply(this, args);
      } as typeof raw.writeHead;
    }
    raw.once('close', () => emit(request, state, state.panicked ? 'Panic' : 'ResponseComplete', raw.statusCode));
    done();
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const state = states.get(request);
    if (state !== undefined && LEVEL_RANK[state.decision.level] >= LEVEL_RANK.Request && Buffer.isBuffer(request.body)) {
      state.requestObject = withoutManagedFields(decodeBytes(request.body, request.headers['content-type'] ?? 'application/json'), state.decision.omitManagedFields);
    }
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    let state = states.get(request);
    // Refused before the audit hook ran (by authentication, or flow control's 429): audited now,
    // at its last stage only, with what is known.
    if (state === undefined && !seen.has(request)) {
      state = begin(request, reply);
      if (state !== undefined) reply.raw.once('close', () => emit(request, state!, 'ResponseComplete', reply.raw.statusCode));
    }
    if (state === undefined) return done(null, payload);
    const code = reply.statusCode;
    const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload instanceof Uint8Array ? payload : undefined;
    const type = String(reply.getHeader('content-type') ?? '');
    state.responseStatus = { metadata: {}, code };
    if (code >= 400 && bytes !== undefined && type.includes('json')) {
      const status = decodeBytes(bytes, type) as { status?: string; message?: string; reason?: string; details?: unknown } | undefined;
      if (status !== undefined) {
        state.responseStatus = { metadata: {}, status: status.status, message: status.message, reason: status.reason, ...(status.details !== undefined ? { details: status.details } : {}), code };
        state.panicked = code === 500 && status.reason === 'InternalError';
      }
    }
    // A streamed answer (a list, a log) is not read back: it is never held whole.
    if (state.decision.level === 'RequestResponse' && bytes !== undefined && reply.getHeader('content-encoding') === undefined) {
      state.responseObject = withoutManagedFields(decodeBytes(bytes, type), state.decision.omitManagedFields);
    }
    done(null, payload);
  });

  app.addHook('onClose', (_instance, done) => {
    sink.close?.();
    done();
  });
}

/** The client's address, after the addresses X-Forwarded-For names, as upstream lists them. */
function sourceIPsOf(request: FastifyRequest): string[] {
  const forwarded = request.headers['x-forwarded-for'];
  const ips = typeof forwarded === 'string' ? forwarded.split(',').map((ip) => ip.trim()).filter((ip) => ip !== '') : [];
  const remote = request.raw.socket?.remoteAddress;
  if (remote !== undefined && !ips.includes(remote)) ips.push(remote);
  return ips;
}

/**
 * A body as the object it carries, whichever encoding the client chose (kubectl sends protobuf):
 * JSON, YAML, protobuf and CBOR are decoded; anything else, or bytes that do not decode, is left out.
 */
function decodeBytes(bytes: Uint8Array, contentType: string): unknown {
  if (bytes.length === 0) return undefined;
  try {
    if (contentType.includes('json')) return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString());
    if (contentType.includes('yaml')) return parseYaml(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString());
    if (contentType.includes('protobuf')) return decodeProtobuf(bytes);
    if (contentType.includes('cbor')) return decodeCbor(bytes);
  } catch {
    // not what its type says: the handler answered it 400, the log goes without it
  }
  return undefined;
}

function withoutManagedFields(object: unknown, omit: boolean): unknown {
  if (!omit || typeof object !== 'object' || object === null) return object;
  const metadata = (object as { metadata?: Record<string, unknown> }).metadata;
  if (metadata === undefined || !('managedFields' in metadata)) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}
