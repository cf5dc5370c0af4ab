/**
 * How chart values read: counts in short form (`1.2K`), bytes in binary units (`1.5 MiB`), rates with a
 * percent sign; and the colour of each status class. Pure, so it is tested without a browser.
 */
import type { PanelUnit } from './analytics-panels.ts';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');
const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** Bytes in the largest binary unit that keeps the number at least 1: `512 B`, `1.5 KiB`. */
export function bytesText(n: number): string {
  let value = n;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? whole.format(value) : value.toFixed(value < 10 ? 1 : 0)} ${byteUnits[unit]}`;
}

/** An axis tick: short, since there are many. */
export function tickText(n: number, unit: PanelUnit | 'number'): string {
  if (unit === 'bytes') return bytesText(n);
  if (unit === 'percent') return `${compact.format(n)}%`;
  return compact.format(n);
}

/** A value in a legend or a list: whole where it can be. */
export function figureText(n: number | null | undefined, unit: PanelUnit | 'number'): string {
  if (n === null || n === undefined) return '—';
  if (unit === 'bytes') return bytesText(n);
  if (unit === 'percent') return `${n.toFixed(2)}%`;
  return whole.format(n);
}

const classColours: Readonly<Record<string, string>> = { '2xx': '#2e8540', '3xx': '#0b5cad', '4xx': '#d9822b', '5xx': '#b3261e', other: '#7a8494' };
const palette = ['#0b5cad', '#d9822b', '#2e8540', '#b3261e', '#6f42c1', '#00838f', '#ad1457', '#5d4037', '#7a8494', '#827717', '#283593', '#ef6c00'];

/** A series' colour: each status class its own (5xx red), other series from a palette by position. */
export function seriesColour(label: string, index: number): string {
  return classColours[label] ?? (label.endsWith('errors_pct') ? (label.startsWith('server') ? '#b3261e' : '#d9822b') : (palette[index % palette.length] ?? '#0b5cad'));
}
