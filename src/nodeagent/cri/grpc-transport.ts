/**
 * The CRI over gRPC (grpc-js): one channel per endpoint (runtime and image share one when they are
 * the same), each message encoded and decoded by wire.ts from svc's embedded proto.
 */
import * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { CriError, GrpcStatus } from './cri-error.js';
import type { CriService, CriTransport, CriUnaryCall } from './transport.js';
import { decodeMessage, encodeMessage, messageType, serviceMethods } from './wire.js';

/** The CRI allows messages up to 16 MiB (ExecSync output is capped there); gRPC's default is 4. */
export const MAX_CRI_MESSAGE_BYTES = 16 * 1024 * 1024;

interface MethodCodec {
  readonly path: string;
  readonly request: protobuf.Type;
  readonly response: protobuf.Type;
}

function codecs(service: CriService): Map<string, MethodCodec> {
  const out = new Map<string, MethodCodec>();
  for (const method of serviceMethods(service)) {
    out.set(method.name, {
      path: `/runtime.v1.${service}/${method.name}`,
      request: messageType(method.requestType),
      response: messageType(method.responseType),
    });
  }
  return out;
}

const CODECS: Record<CriService, Map<string, MethodCodec>> = { RuntimeService: codecs('RuntimeService'), ImageService: codecs('ImageService') };

export class GrpcTransport implements CriTransport {
  private readonly runtime: grpc.Client;
  private readonly image: grpc.Client;

  /** Targets as grpc-js takes them (`unix:///abs/path`, `host:port`). */
  constructor(runtimeTarget: string, imageTarget: string, reconnectBackoffMs?: number) {
    const channelOptions: grpc.ChannelOptions = {
      'grpc.max_receive_message_length': MAX_CRI_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_CRI_MESSAGE_BYTES,
      // Initial and max alike: a fixed wait, not one that grows past the caller's poll interval.
      ...(reconnectBackoffMs === undefined ? {} : { 'grpc.initial_reconnect_backoff_ms': reconnectBackoffMs, 'grpc.max_reconnect_backoff_ms': reconnectBackoffMs }),
    };
    this.runtime = new grpc.Client(runtimeTarget, grpc.credentials.createInsecure(), channelOptions);
    this.image = imageTarget === runtimeTarget ? this.runtime : new grpc.Client(imageTarget, grpc.credentials.createInsecure(), channelOptions);
  }

  close(): void {
    this.runtime.close();
    if (this.image !== this.runtime) this.image.close();
  }

  unary(call: CriUnaryCall): Promise<unknown> {
    const codec = CODECS[call.service].get(call.method);
    const name = `${call.service}/${call.method}`;
    if (!codec) return Promise.reject(new CriError(name, GrpcStatus.UNIMPLEMENTED, `CRI ${name} is not in svc's proto`));
    const client = call.service === 'RuntimeService' ? this.runtime : this.image;
    return new Promise<unknown>((resolve, reject) => {
      const pending = client.makeUnaryRequest(
        codec.path,
        (value: object) => encodeMessage(codec.request, value),
        (bytes: Buffer) => decodeMessage<unknown>(codec.response, bytes),
        call.request,
        new grpc.Metadata(),
        call.deadline === undefined ? {} : { deadline: call.deadline },
        (error, response) => {
          call.signal?.removeEventListener('abort', onAbort);
          if (error) reject(new CriError(name, error.code, error.details || error.message, error));
          else if (response === undefined) reject(new CriError(name, GrpcStatus.INTERNAL, 'empty response'));
          else resolve(response);
        },
      );
      const onAbort = (): void => pending.cancel();
      call.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
