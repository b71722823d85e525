/**
 * The handler actions a probe or a lifecycle hook names. The API keeps them loose (the Pod schema
 * only knows they are objects), so the agent parses them here, at the point of use, into typed
 * actions; a malformed action is the pod author's error and fails the probe or hook with a 422.
 */
import { z } from 'zod';
import { StatusError, type Container } from '../../api/index.js';

/** A port by number, or by the name of one of the container's ports. */
export const intOrStringSchema = z.union([z.int(), z.string().min(1)]);

export const execActionSchema = z.looseObject({ command: z.array(z.string()).optional() });

export const httpHeaderSchema = z.looseObject({ name: z.string(), value: z.string() });

export const httpGetActionSchema = z.looseObject({
  path: z.string().optional(),
  port: intOrStringSchema,
  /** Defaults to the pod IP. */
  host: z.string().optional(),
  scheme: z.enum(['HTTP', 'HTTPS']).optional(),
  httpHeaders: z.array(httpHeaderSchema).optional(),
});

export const tcpSocketActionSchema = z.looseObject({ port: intOrStringSchema, host: z.string().optional() });

export const grpcActionSchema = z.looseObject({ port: z.int().min(1).max(65535), service: z.string().optional() });

export const sleepActionSchema = z.looseObject({ seconds: z.int().min(0) });

/** What a probe runs: exactly one of these is set. */
export const probeActionSchema = z.looseObject({
  exec: execActionSchema.optional(),
  httpGet: httpGetActionSchema.optional(),
  tcpSocket: tcpSocketActionSchema.optional(),
  grpc: grpcActionSchema.optional(),
});

/** A postStart or preStop handler: exactly one of these is set. */
export const lifecycleHandlerSchema = z.looseObject({
  exec: execActionSchema.optional(),
  httpGet: httpGetActionSchema.optional(),
  /** Deprecated in hooks: accepted and does nothing, as the kubelet. */
  tcpSocket: tcpSocketActionSchema.optional(),
  sleep: sleepActionSchema.optional(),
});

export const lifecycleSchema = z.looseObject({
  postStart: lifecycleHandlerSchema.optional(),
  preStop: lifecycleHandlerSchema.optional(),
});

export type ExecAction = z.infer<typeof execActionSchema>;
export type HttpGetAction = z.infer<typeof httpGetActionSchema>;
export type TcpSocketAction = z.infer<typeof tcpSocketActionSchema>;
export type GrpcAction = z.infer<typeof grpcActionSchema>;
export type SleepAction = z.infer<typeof sleepActionSchema>;
export type ProbeAction = z.infer<typeof probeActionSchema>;
export type LifecycleHandler = z.infer<typeof lifecycleHandlerSchema>;
export type Lifecycle = z.infer<typeof lifecycleSchema>;
/** A container's probe as the API stores it (timing fields and a loose action). */
export type Probe = NonNullable<Container['livenessProbe']>;

function invalid(what: string, issues: z.core.$ZodIssue[]): StatusError {
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
  return new StatusError({ reason: 'Invalid', message: `invalid ${what}${where}: ${first?.message ?? 'malformed'}` });
}

/** The probe's action, typed; throws a 422 StatusError when it is malformed or names none. */
export function parseProbeAction(probe: Probe): ProbeAction {
  const parsed = probeActionSchema.safeParse(probe);
  if (!parsed.success) throw invalid('probe', parsed.error.issues);
  const { exec, httpGet, tcpSocket, grpc } = parsed.data;
  if (!exec && !httpGet && !tcpSocket && !grpc) throw new StatusError({ reason: 'Invalid', message: 'probe names no handler (exec, httpGet, tcpSocket or grpc)' });
  return parsed.data;
}

/** The container's postStart and preStop handlers, typed; throws a 422 StatusError when malformed. */
export function containerLifecycle(container: Container): Lifecycle {
  const parsed = lifecycleSchema.safeParse(container.lifecycle ?? {});
  if (!parsed.success) throw invalid(`lifecycle of container "${container.name}"`, parsed.error.issues);
  return parsed.data;
}
