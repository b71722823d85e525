/**
 * The CRI transport of a hollow node whose simulated runtime lives in the same process: each call
 * is handed to the runtime as the object it would have been decoded into, and the runtime's
 * shaped answer comes back as the gRPC transport's decoder would give it, without the bytes or
 * the socket between. Requests are shaped through the protobuf types (so a field the proto does
 * not know is dropped as on the wire); answers already have the decoded shape.
 */
import { CriError, GrpcStatus, messageType, serviceMethods, shapeMessage, type CriService, type CriTransport, type CriUnaryCall } from '../cri/index.js';
import type protobuf from 'protobufjs';
import type { SimulatedRuntime } from './simulated-runtime.js';

const REQUEST_TYPES: ReadonlyMap<string, protobuf.Type> = new Map(
  (['RuntimeService', 'ImageService'] as const).flatMap((service: CriService) => serviceMethods(service).map((method) => [`${service}/${method.name}`, messageType(method.requestType)] as const)),
);

export class InProcessTransport implements CriTransport {
  private closed = false;

  constructor(private readonly runtime: SimulatedRuntime) {}

  close(): void {
    this.closed = true;
  }

  async unary(call: CriUnaryCall): Promise<unknown> {
    const name = `${call.service}/${call.method}`;
    if (this.closed) throw new CriError(name, GrpcStatus.UNAVAILABLE, 'the client is closed');
    const type = REQUEST_TYPES.get(name);
    if (!type) throw new CriError(name, GrpcStatus.UNIMPLEMENTED, `CRI ${name} is not in svc's proto`);
    return this.runtime.handle(call.service, call.method, shapeMessage<object>(type, call.request));
  }
}
