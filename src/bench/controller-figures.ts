/** What a controller replay adds to a BenchResult. */
export interface ControllerFigures {
  /** `settle`, `flood`, or `recorded ×speed`. */
  readonly pace: string;
  /** Recorded events that reached the loop's informers (a SYNCED line counts its objects). */
  readonly events: number;
  /** Reconciles finished, and how each ended. */
  readonly reconciles: number;
  readonly results: Readonly<Record<string, number>>;
  /** reconciles / the run's wall time (feeding included). */
  readonly reconcilesPerSecond: number;
  /** Writes the loop sent to the server (all answered there), by method. */
  readonly writes: number;
  readonly writesByMethod: Readonly<Record<string, number>>;
  readonly writesPerEvent: number;
  /** Kubernetes Events the loop recorded (counted, not written). */
  readonly recordedEvents: number;
  readonly wallMs: number;
}
