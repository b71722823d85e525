import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import type { GrpcAction } from './actions.js';
import { hostPort, resolveHost } from './port.js';
import type { ActionOutcome } from './target.js';

/** grpc.health.v1.HealthCheckResponse.ServingStatus, by number. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
const CHECK = '/grpc.health.v1.Health/Check';

// HealthCheckRequest { string service = 1; } and HealthCheckResponse { ServingStatus status = 1; }:
// two fields are not worth a .proto file.
function encodeRequest(service: string): Buffer {
  const writer = protobuf.Writer.create();
  if (service) writer.uint32((1 << 3) | 2).string(service);
  return Buffer.from(writer.finish());
}

function decodeStatus(bytes: Buffer): number {
  const reader = protobuf.Reader.create(bytes);
  let status = 0;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 0) status = reader.int32();
    else reader.skipType(tag & 7);
  }
  return status;
}

/**
 * Calls the standard gRPC health service (`grpc.health.v1.Health/Check`, plaintext, as the
 * kubelet) on the pod's port: SERVING is success; any other status or a failed call is failure.
 */
export async function runGrpcAction(action: GrpcAction, podIP: string | undefined, options: { timeoutSeconds: number; signal?: AbortSignal | undefined }): Promise<ActionOutcome> {
  const address = hostPort(resolveHost(undefined, podIP), action.port);
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const call = client.makeUnaryRequest(
        CHECK,
        encodeRequest,
        decodeStatus,
        action.service ?? '',
        new grpc.Metadata(),
        { deadline: Date.now() + Math.max(1, options.timeoutSeconds) * 1000 },
        (error, value) => (error ? reject(error) : resolve(value ?? 0)),
      );
      options.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
    if (status === 1) return { result: 'success', message: '' };
    return { result: 'failure', message: `service unhealthy (responded with "${SERVING_STATUS[status] ?? status}")` };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { result: 'failure', message: `rpc error calling ${address}: ${message}` };
  } finally {
    client.close();
  }
}
