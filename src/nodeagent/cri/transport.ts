/**
 * How a CriClient's calls reach a container runtime: gRPC over a socket (`grpc-transport.ts`,
 * every real runtime) or a runtime living in the same process (svc's simulated one, for hollow
 * nodes: `src/nodeagent/simulated`). The client above it keeps the deadlines, the abort signal and
 * the call records, so both transports are seen the same way by the agent.
 */
import type { CriError } from './cri-error.js';

export type CriService = 'RuntimeService' | 'ImageService';

/** One unary call as the client hands it to its transport. */
export interface CriUnaryCall {
  readonly service: CriService;
  /** The method name, `RunPodSandbox`. */
  readonly method: string;
  /** The request as the caller built it (`Input<…>` of the method's request message). */
  readonly request: object;
  /** Absolute deadline (`Date.now()` ms), when the call has one. */
  readonly deadline?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface CriTransport {
  /**
   * Resolves with the response in the shape the protobuf decoder gives (every field present,
   * enum names, bigints for 64-bit integers); rejects with a {@link CriError}.
   */
  unary(call: CriUnaryCall): Promise<unknown>;
  close(): void;
}

export type { CriError };
