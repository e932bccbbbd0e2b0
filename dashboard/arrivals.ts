/**
 * The arrivals chart (docs/issuer.md "Arrivals chart"): entries per minute per gate, and exits where a gate
 * has any (dashed, in the gate's colour), for the event so far, drawn by uPlot on a canvas and updated in
 * place from each overview. uPlot styles through the CSSOM and its stylesheet is bundled by Vite, so the
 * page's CSP (no inline style or script) holds. Beside it, a text summary (peak minute, totals, each gate)
 * that screen readers read instead of the canvas.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ArrivalsView } from '../issuer/dashboard-api.js';
import { arrivalSeries, arrivalsSummary, formatMinute } from './arrivals-summary.js';
import { fill, h } from './dom.js';
import { formatCount } from './format.js';
import { t } from './messages/format.js';

/** Colour-blind-safe (Okabe–Ito), one per gate in order; exits reuse their gate's colour, dashed. */
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
const HEIGHT = 260;

export class ArrivalsChart {
  readonly element: HTMLElement;
  private readonly plotBox = h('div', { class: 'arrivals-plot', id: 'arrivals-plot', 'aria-hidden': 'true' });
  private readonly summary = h('div', { class: 'arrivals-summary', id: 'arrivals-summary' });
  private readonly empty = h('p', { class: 'empty', id: 'arrivals-empty' }, t('arrivals.none'));
  private plot: uPlot | null = null;
  /** The series' identity (gate and kind, in order): a new shape means a new plot. */
  private shape = '';

  constructor() {
    this.element = h(
      'section',
      { class: 'panel arrivals', id: 'arrivals', 'aria-labelledby': 'arrivals-title' },
      h('h2', { id: 'arrivals-title' }, t('arrivals.title')),
      h('div', { class: 'arrivals-body' }, this.plotBox, this.empty, this.summary),
    );
    window.addEventListener('resize', () => this.plot?.setSize({ width: this.width(), height: HEIGHT }));
  }

  private width(): number {
    return Math.max(320, this.plotBox.clientWidth || 800);
  }

  update(view: ArrivalsView): void {
    fill(this.summary, ...arrivalsSummary(view).map((line) => h('p', {}, line)));
    const series = arrivalSeries(view);
    this.empty.hidden = view.minutes.length > 0;
    this.plotBox.hidden = view.minutes.length === 0;
    this.plotBox.dataset.series = series.map((s) => s.label).join('|');
    this.plotBox.dataset.minutes = String(view.minutes.length);
    if (view.minutes.length === 0) {
      this.plot?.destroy();
      this.plot = null;
      this.shape = '';
      return;
    }
    // A minute's count holds from its start to the next minute's (a step after each point); one more point at the
    // end of the last minute, repeating its values, so the current minute is drawn as wide as the others.
    const xs = view.minutes.map((minute) => Date.parse(minute) / 1000);
    xs.push(xs.at(-1)! + 60);
    const data: uPlot.AlignedData = [xs, ...series.map((s) => [...s.values, s.values.at(-1) ?? 0])];
    const shape = series.map((s) => `${s.kind}:${s.gate_id ?? ''}`).join('|');
    if (this.plot !== null && shape === this.shape) {
      this.plot.setData(data);
      return;
    }
    this.plot?.destroy();
    this.shape = shape;
    const gates = view.gates.map((gate) => gate.gate_id);
    const colour = (gate: string | null): string => PALETTE[gates.indexOf(gate) % PALETTE.length]!;
    this.plot = new uPlot(
      {
        width: this.width(),
        height: HEIGHT,
        // The page's own clock labels (24-hour, its language), not uPlot's English month names.
        axes: [
          { values: (_u, splits) => splits.map((s) => formatMinute(new Date(s * 1000).toISOString())) },
          { label: t('arrivals.axis'), values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? formatCount(s) : '')) },
        ],
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        cursor: { drag: { x: false, y: false } },
        legend: { live: false },
        series: [
          { label: t('arrivals.axis.time') },
          ...series.map((s) => ({
            label: s.label,
            stroke: colour(s.gate_id),
            width: s.kind === 'entries' ? 2 : 1.5,
            ...(s.kind === 'exits' ? { dash: [6, 4] } : { fill: `${colour(s.gate_id)}1f` }),
            paths: uPlot.paths.stepped!({ align: 1 }),
            points: { show: false },
          })),
        ],
      },
      data,
      this.plotBox,
    );
    const canvas = this.plotBox.querySelector('canvas');
    canvas?.setAttribute('data-chart', 'arrivals');
  }
}
