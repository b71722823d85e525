// Why the resource managers refuse a pod, as the kubelet says it: the reason becomes the pod's
// status.reason and the Warning event's reason, the message its message ("Pod was rejected: ...").

/** A refusal with its own reason (upstream's admission.Error). */
export class AdmissionError extends Error {
  override readonly name = 'AdmissionError';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** The topology manager's policy found no NUMA placement it may admit. */
export const topologyAffinityError = (): AdmissionError => new AdmissionError('TopologyAffinityError', 'Resources cannot be allocated with Topology locality');

/** full-pcpus-only: the request is not whole physical cores, or not enough of them are free. */
export const smtAlignmentError = (message: string): AdmissionError => new AdmissionError('SMTAlignmentError', `SMT Alignment Error: ${message}`);

export interface AdmitResult {
  readonly admit: boolean;
  readonly reason?: string;
  readonly message?: string;
}

/** Any other failure of an allocation is "unexpected", in upstream's words. */
export function admitResultOf(error: unknown): AdmitResult {
  if (error === undefined) return { admit: true };
  if (error instanceof AdmissionError) return { admit: false, reason: error.reason, message: error.message };
  const text = error instanceof Error ? error.message : String(error);
  return { admit: false, reason: 'UnexpectedAdmissionError', message: `Allocate failed due to ${text}, which is unexpected` };
}
