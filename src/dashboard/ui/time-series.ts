import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css';
import { el } from './dom.js';

/** uPlot's own rules, adopted once: a constructed sheet, which the page's CSP allows (no inline style). */
let styled = false;
function adoptPlotStyle(): void {
  if (styled) return;
  styled = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(uplotCss);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

export interface SeriesSpec {
  readonly label: string;
  readonly stroke: string;
}

/**
 * A time-series plot of the last `points` seconds, one sample per second per series (uPlot: a
 * canvas, so a redraw costs the same whatever the history). Samples are added with `push`; the
 * plot is redrawn at most once per animation frame.
 */
export class TimeSeriesPlot {
  readonly element: HTMLElement;
  readonly #times: number[] = [];
  readonly #values: (number | null)[][];
  #plot: uPlot | undefined;
  #scheduled = false;

  constructor(
    readonly id: string,
    private readonly title: string,
    private readonly unit: string,
    private readonly series: readonly SeriesSpec[],
    private readonly points = 300,
  ) {
    adoptPlotStyle();
    this.element = el('div', { class: 'plot', id, 'data-samples': '0' });
    this.#values = series.map(() => []);
  }

  /** One sample: a value per series (null: no value this second) at `time` (seconds since the epoch). */
  push(time: number, values: readonly (number | null)[]): void {
    this.#times.push(time);
    this.series.forEach((_, i) => this.#values[i]!.push(values[i] ?? null));
    if (this.#times.length > this.points) {
      this.#times.shift();
      for (const v of this.#values) v.shift();
    }
    this.element.dataset['samples'] = String(this.#times.length);
    this.element.dataset['last'] = values.map((v) => (v === null ? '' : String(v))).join(',');
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      this.#draw();
    });
  }

  clear(): void {
    this.#times.length = 0;
    for (const v of this.#values) v.length = 0;
    this.element.dataset['samples'] = '0';
    this.#draw();
  }

  #draw(): void {
    if (!this.element.isConnected) return;
    const data: uPlot.AlignedData = [this.#times, ...this.#values];
    if (this.#plot === undefined) {
      const width = Math.max(300, this.element.clientWidth || 480);
      this.#plot = new uPlot(
        {
          title: this.title,
          width,
          height: 180,
          scales: { x: { time: true } },
          axes: [{}, { label: this.unit, size: 60 }],
          series: [{}, ...this.series.map((s) => ({ label: s.label, stroke: s.stroke, width: 1.5, spanGaps: false }))],
          legend: { live: false },
          cursor: { drag: { x: false, y: false } },
        },
        data,
        this.element,
      );
    } else this.#plot.setData(data);
  }

  /** Frees the canvas (the view went away). */
  destroy(): void {
    this.#plot?.destroy();
    this.#plot = undefined;
  }
}
