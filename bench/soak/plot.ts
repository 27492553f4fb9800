/** The soak's plot: RSS above, requests per second below, over time; the warm-up half shaded. */
import type { SoakSample } from './sampler.js';

const WIDTH = 720;
const PANEL = 150;
const LEFT = 60;
const RIGHT = 20;
const TOP = 30;
const GAP = 45;

const fmt = (n: number) => (Math.abs(n) >= 20 || n === 0 ? n.toFixed(0) : n.toFixed(1));
const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A panel of one series: its frame, y ticks, the series as a polyline. */
function panel(samples: readonly SoakSample[], seconds: number, top: number, title: string, value: (s: SoakSample) => number, fromZero: boolean, colour: string): string {
  const values = samples.map(value);
  const max = Math.max(...values, 1);
  const min = fromZero ? 0 : Math.min(...values);
  const span = max - min || 1;
  const lo = fromZero ? 0 : min - span * 0.1;
  const hi = max + span * 0.1;
  const x = (t: number) => LEFT + (t / seconds) * (WIDTH - LEFT - RIGHT);
  const y = (v: number) => top + PANEL - ((v - lo) / (hi - lo)) * PANEL;
  const ticks = [0, 1, 2, 3, 4].map((i) => lo + ((hi - lo) * i) / 4);
  return [
    `<rect x="${LEFT}" y="${top}" width="${(WIDTH - LEFT - RIGHT) / 2}" height="${PANEL}" fill="#eee"/>`,
    `<rect x="${LEFT}" y="${top}" width="${WIDTH - LEFT - RIGHT}" height="${PANEL}" fill="none" stroke="#888"/>`,
    `<line x1="${x((seconds * 3) / 4)}" y1="${top}" x2="${x((seconds * 3) / 4)}" y2="${top + PANEL}" stroke="#bbb" stroke-dasharray="4 3"/>`,
    ...ticks.map((v) => `<text x="${LEFT - 6}" y="${y(v) + 4}" text-anchor="end">${fmt(v)}</text>`),
    `<text x="${LEFT}" y="${top - 8}" font-weight="bold">${esc(title)}</text>`,
    `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${samples.map((s) => `${x(s.t).toFixed(1)},${y(value(s)).toFixed(1)}`).join(' ')}"/>`,
  ].join('\n');
}

/** An SVG of the samples of a `seconds`-long run; `caption` goes under the time axis. */
export function soakPlot(samples: readonly SoakSample[], seconds: number, caption: string): string {
  const height = TOP + 2 * PANEL + GAP + 50;
  // Time ticks at a round step, about ten of them.
  const axisY = TOP + 2 * PANEL + GAP;
  const x = (t: number) => LEFT + (t / seconds) * (WIDTH - LEFT - RIGHT);
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].find((candidate) => seconds / candidate <= 10) ?? 3600;
  const ticks = Array.from({ length: Math.floor(seconds / step) + 1 }, (_, i) => i * step);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    panel(samples, seconds, TOP, 'server RSS (MiB)', (s) => s.rssMb, false, '#c0392b'),
    panel(samples, seconds, TOP + PANEL + GAP, 'requests per second', (s) => s.rps, true, '#2c6fbb'),
    ...ticks.map((t) => `<text x="${x(t)}" y="${axisY + 16}" text-anchor="middle">${step >= 60 ? `${t / 60} min` : `${t} s`}</text>`),
    `<text x="${LEFT}" y="${axisY + 36}">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
