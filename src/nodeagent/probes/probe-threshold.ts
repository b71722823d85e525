/**
 * Consecutive results of one probe against its thresholds: a result counts only once it repeated
 * `successThreshold` (or `failureThreshold`) times in a row, as the kubelet's worker counts.
 */
export class ProbeThreshold {
  #last: 'success' | 'failure' | undefined;
  #run = 0;

  constructor(
    private readonly successThreshold: number,
    private readonly failureThreshold: number,
  ) {}

  /** Records one attempt; returns the result once its run reaches the threshold, else undefined. */
  observe(result: 'success' | 'failure'): 'success' | 'failure' | undefined {
    if (result === this.#last) this.#run++;
    else {
      this.#last = result;
      this.#run = 1;
    }
    const needed = result === 'success' ? this.successThreshold : this.failureThreshold;
    return this.#run >= needed ? result : undefined;
  }
}
