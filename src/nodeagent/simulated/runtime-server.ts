/**
 * The simulated runtime served as a real CRI endpoint: gRPC (grpc-js) on a unix socket, the same
 * `runtime.v1` services containerd serves. A node agent started with
 * `--container-runtime-endpoint unix://<socket>` (or crictl) cannot tell it from a runtime but by
 * its name, `svc-simulated`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { decodeMessage, encodeMessage, GrpcStatus, isCriError, MAX_CRI_MESSAGE_BYTES, messageType, serviceMethods, type CriService } from '../cri/index.js';
import type { SimulatedRuntime } from './simulated-runtime.js';

export interface SimulatedRuntimeServer {
  /** `unix:///…`: what `--container-runtime-endpoint` takes. */
  readonly endpoint: string;
  close(): Promise<void>;
}

function serviceDefinition(service: CriService): grpc.ServiceDefinition {
  const definition: Record<string, grpc.MethodDefinition<object, unknown>> = {};
  for (const method of serviceMethods(service)) {
    const request = messageType(method.requestType);
    const response = messageType(method.responseType);
    definition[method.name] = {
      path: `/runtime.v1.${service}/${method.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: object) => encodeMessage(request, value),
      requestDeserialize: (bytes: Buffer) => decodeMessage<object>(request, bytes),
      responseSerialize: (value: unknown) => encodeMessage(response, value as object),
      responseDeserialize: (bytes: Buffer) => decodeMessage<unknown>(response, bytes),
    };
  }
  return definition;
}

function implementation(runtime: SimulatedRuntime, service: CriService): grpc.UntypedServiceImplementation {
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of serviceMethods(service)) {
    handlers[method.name] = ((call: grpc.ServerUnaryCall<object, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      runtime.handle(service, method.name, call.request).then(
        (answer) => callback(null, answer),
        (error: unknown) =>
          callback({
            code: isCriError(error) ? error.grpcCode : GrpcStatus.INTERNAL,
            // The CriError's message repeats the method and code; the details are what the runtime said.
            details: (error as Error).message.replace(/^CRI [^:]+: [A-Z_]+: /, ''),
          }),
      );
    }) as grpc.handleUnaryCall<object, unknown>;
  }
  return handlers;
}

/** Serves `runtime` on the unix socket at `socketPath` (a stale socket file there is replaced). */
export async function serveSimulatedRuntime(runtime: SimulatedRuntime, socketPath: string): Promise<SimulatedRuntimeServer> {
  mkdirSync(dirname(socketPath), { recursive: true });
  rmSync(socketPath, { force: true });
  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_CRI_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_CRI_MESSAGE_BYTES });
  for (const service of ['RuntimeService', 'ImageService'] as const) server.addService(serviceDefinition(service), implementation(runtime, service));
  const endpoint = `unix://${socketPath}`;
  await new Promise<void>((resolve, reject) => server.bindAsync(endpoint, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())));
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => {
          rmSync(socketPath, { force: true });
          resolve();
        });
      }),
  };
}
