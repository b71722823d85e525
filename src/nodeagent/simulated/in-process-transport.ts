/**
 * The CRI transport of a hollow node whose simulated runtime lives in the same process: each call
 * is handed to the runtime, and the runtime's shaped answer comes back as the gRPC transport's
 * decoder would give it, without the bytes or the socket between.
 *
 * Requests go over as the agent built them (`Input<...>` of the CRI's own types): the runtime reads
 * every field with the CRI's default itself, and answers only through the proto's types, so a
 * request never needs the decoded shape. Shaping each one through its protobuf type (what the
 * wire would do: unknown fields dropped, defaults filled in, numbers made bigints) was 7 % of a
 * hollow-node process's busy time; `shapeRequests` does it still, to weigh that cost or to check
 * the simulation against the wire's view of a request. How this differs from the wire:
 * docs/hollow-nodes.md.
 */
import { CriError, GrpcStatus, messageType, serviceMethods, shapeMessage, type CriService, type CriTransport, type CriUnaryCall } from '../cri/index.js';
import type protobuf from 'protobufjs';
import type { SimulatedRuntime } from './simulated-runtime.js';

const REQUEST_TYPES: ReadonlyMap<string, protobuf.Type> = new Map(
  (['RuntimeService', 'ImageService'] as const).flatMap((service: CriService) => serviceMethods(service).map((method) => [`${service}/${method.name}`, messageType(method.requestType)] as const)),
);

export interface InProcessTransportOptions {
  /**
   * Shape every request through its protobuf type before the runtime reads it, as the socket's
   * decoder would (default false: handed over as built). `svc hollow-nodes --shape-cri-requests`.
   */
  readonly shapeRequests?: boolean | undefined;
}

export class InProcessTransport implements CriTransport {
  private closed = false;
  private readonly shapeRequests: boolean;

  constructor(
    private readonly runtime: SimulatedRuntime,
    options: InProcessTransportOptions = {},
  ) {
    this.shapeRequests = options.shapeRequests === true;
  }

  close(): void {
    this.closed = true;
  }

  async unary(call: CriUnaryCall): Promise<unknown> {
    const name = `${call.service}/${call.method}`;
    if (this.closed) throw new CriError(name, GrpcStatus.UNAVAILABLE, 'the client is closed');
    const type = REQUEST_TYPES.get(name);
    if (!type) throw new CriError(name, GrpcStatus.UNIMPLEMENTED, `CRI ${name} is not in svc's proto`);
    return this.runtime.handle(call.service, call.method, this.shapeRequests ? shapeMessage<object>(type, call.request) : call.request);
  }
}
