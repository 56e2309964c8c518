// The fleet's charts, drawn here as inline SVG (no charting library, no script): a host's busy and
// memory over a window (the last hour, the last day), each averaged into buckets so a day of
// one-second samples is a few hundred numbers, with a gap where no sample fell. Values outside 0-1
// (a hostile or broken samples line) are clamped; the output's size depends on the bucket count only.
// Pure.

import type { HistoryPoint } from '../../service/actions/dash.js';
import { type Html, html } from './html.js';

export type ChartWindow = 'hour' | 'day';

export const WINDOW_MS: Record<ChartWindow, number> = { hour: 3_600_000, day: 86_400_000 };
/** A minute a bucket over the hour, ten minutes over the day. */
export const BUCKETS: Record<ChartWindow, number> = { hour: 60, day: 144 };
const WIDTH = 240;
const HEIGHT = 48;

export interface Series {
  /** Per bucket, oldest first: the mean (0-1), or null where no sample fell. */
  values: Array<number | null>;
  /** The window's mean and highest bucket, null without samples. */
  mean: number | null;
  peak: number | null;
}

/** The mean of each bucket of `window` ending at `now`. */
export function bucketSeries(
  points: readonly HistoryPoint[],
  pick: (point: HistoryPoint) => number | null,
  window: ChartWindow,
  now: number,
): Series {
  const span = WINDOW_MS[window];
  const buckets = BUCKETS[window];
  const start = now - span;
  const sums = new Array<number>(buckets).fill(0);
  const counts = new Array<number>(buckets).fill(0);
  for (const point of points) {
    const value = pick(point);
    if (value === null || !Number.isFinite(value) || point.ts_ms < start || point.ts_ms > now) continue;
    const index = Math.min(buckets - 1, Math.floor(((point.ts_ms - start) / span) * buckets));
    sums[index] = (sums[index] ?? 0) + Math.min(1, Math.max(0, value));
    counts[index] = (counts[index] ?? 0) + 1;
  }
  const values = sums.map((sum, i) => ((counts[i] ?? 0) === 0 ? null : sum / (counts[i] as number)));
  const known = values.filter((v): v is number => v !== null);
  return {
    values,
    mean: known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length,
    peak: known.length === 0 ? null : Math.max(...known),
  };
}

/** SVG polyline point lists, one per run of buckets with a value (a gap breaks the line). */
export function linePaths(values: ReadonlyArray<number | null>, width = WIDTH, height = HEIGHT): string[] {
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const runs: string[] = [];
  let run: string[] = [];
  values.forEach((value, i) => {
    if (value === null) {
      if (run.length > 0) runs.push(run.join(' '));
      run = [];
      return;
    }
    const x = values.length > 1 ? i * step : width / 2;
    const y = height - value * height;
    run.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  if (run.length > 0) runs.push(run.join(' '));
  // A lone point is drawn as a short flat line, so it shows.
  return runs.map((points) => (points.includes(' ') ? points : `${points} ${points}`));
}

const percent = (value: number | null) => (value === null ? '–' : `${Math.round(value * 100)}%`);

/** One chart: busy and memory over `window`, with the window's means and peaks as its legend. */
export function hostChart(points: readonly HistoryPoint[], window: ChartWindow, now: number): Html {
  const busy = bucketSeries(points, (p) => p.busy, window, now);
  const memory = bucketSeries(points, (p) => p.memory_used, window, now);
  const label = window === 'hour' ? 'last hour' : 'last day';
  const empty = busy.mean === null && memory.mean === null;
  const lines = (series: Series, kind: string) =>
    linePaths(series.values).map((points) => html`<polyline class="${kind}" points="${points}"/>`);
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${`busy and memory, ${label}`}">
<title>${`busy and memory, ${label}`}</title>
<line class="grid" x1="0" y1="${HEIGHT / 2}" x2="${WIDTH}" y2="${HEIGHT / 2}"/>
${lines(memory, 'memory')}${lines(busy, 'busy')}
</svg>
<figcaption>${label}: ${
    empty
      ? 'no samples'
      : html`<span class="busy">busy ${percent(busy.mean)} avg, ${percent(busy.peak)} peak</span> · <span class="memory">memory ${percent(memory.mean)} avg</span>`
  }</figcaption>
</figure>`;
}
