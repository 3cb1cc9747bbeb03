/**
 * The deal page's two charts, drawn as SVG in the report's colours (no chart library: two shapes
 * do not need one). Each is an image with a text alternative that says what it shows, and the
 * numbers are also in the tables beside them.
 */
import { useId } from 'react';
import { day, month, usd } from '../format';

const W = 640;
const PAD = { top: 12, right: 12, bottom: 26, left: 58 };

/**
 * Round steps for an axis from `lo` to `hi`: 1, 2 or 5 times a power of ten, about four of them,
 * the first at or below `lo` and the last at or above `hi` (the axis holds every value).
 */
export function niceTicks(lo: number, hi: number, count = 4): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const ticks: number[] = [];
  for (let v = Math.floor(lo / step) * step; ; v += step) {
    ticks.push(Math.round(v * 100) / 100);
    if (v >= hi) break;
  }
  return ticks;
}

/** `$12k`, `$1.2M`, `-$3k`: an axis label. */
export function shortUsd(v: number): string {
  const a = Math.abs(v);
  const s = a >= 1e6 ? `${(a / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M` : a >= 1e3 ? `${(a / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k` : a.toFixed(0);
  return `${v < 0 ? '-' : ''}$${s}`;
}

function YAxis({ ticks, y, width }: { ticks: number[]; y: (v: number) => number; width: number }) {
  return (
    <g className="chart-axis" aria-hidden="true">
      {ticks.map((t) => (
        <g key={t}>
          <line x1={PAD.left} x2={width - PAD.right} y1={y(t)} y2={y(t)} className={t === 0 ? 'chart-zero' : 'chart-grid'} />
          <text x={PAD.left - 6} y={y(t) + 4} textAnchor="end">
            {shortUsd(t)}
          </text>
        </g>
      ))}
    </g>
  );
}

export interface MonthBar {
  month: string;
  deposits: number;
  revenue: number;
}

/** Deposits and revenue per month, side by side. */
export function MonthlyChart({ months, height = 200 }: { months: MonthBar[]; height?: number }) {
  const id = useId();
  const top = Math.max(1, ...months.map((m) => Math.max(m.deposits, m.revenue)));
  const ticks = niceTicks(0, top);
  const max = ticks[ticks.length - 1];
  const y = (v: number) => PAD.top + (1 - v / max) * (height - PAD.top - PAD.bottom);
  const band = (W - PAD.left - PAD.right) / Math.max(1, months.length);
  const bar = Math.min(28, band * 0.36);
  const summary = months.map((m) => `${month(m.month)}: deposits ${usd(m.deposits)}, revenue ${usd(m.revenue)}`).join('; ');
  return (
    <figure className="chart">
      <div className="chart-title" aria-hidden="true">
        Deposits and revenue per month
      </div>
      <svg viewBox={`0 0 ${W} ${height}`} role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>Deposits and revenue per month</title>
        <desc id={`${id}-d`}>{summary}</desc>
        <YAxis ticks={ticks} y={y} width={W} />
        {months.map((m, i) => {
          const x = PAD.left + i * band + band / 2;
          return (
            <g key={m.month}>
              <rect x={x - bar - 1} y={y(m.deposits)} width={bar} height={y(0) - y(m.deposits)} className="chart-deposits" />
              <rect x={x + 1} y={y(m.revenue)} width={bar} height={y(0) - y(m.revenue)} className="chart-revenue" />
              <text x={x} y={height - 8} textAnchor="middle" className="chart-label" aria-hidden="true">
                {month(m.month).replace(/ \d{2}(\d{2})$/, " '$1")}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="chart-legend">
        <span className="key key-deposits" /> Deposits <span className="key key-revenue" /> Revenue
      </figcaption>
    </figure>
  );
}

export interface DayBalance {
  date: string;
  balance: number;
}

/** Days between two YYYY-MM-DD dates. */
const daysApart = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / 86_400_000);

/**
 * The deal's end-of-day balance over the days its statements cover. The x axis runs over covered
 * days only: where no statement covers a stretch of days, the line stops and a dashed rule marks
 * the gap (a line drawn across it would show balances nobody printed). Below zero is shaded.
 */
export function DailyBalanceChart({ days, height = 200 }: { days: DayBalance[]; height?: number }) {
  const id = useId();
  if (days.length < 2) return null;
  const values = days.map((d) => d.balance);
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const ticks = niceTicks(lo, hi);
  const [min, max] = [ticks[0], ticks[ticks.length - 1]];
  const y = (v: number) => PAD.top + (1 - (v - min) / (max - min || 1)) * (height - PAD.top - PAD.bottom);
  const x = (i: number) => PAD.left + (i / (days.length - 1)) * (W - PAD.left - PAD.right);
  // runs of consecutive covered days
  const runs: [number, number][] = [];
  days.forEach((d, i) => {
    if (i > 0 && daysApart(days[i - 1].date, d.date) <= 1) runs[runs.length - 1][1] = i;
    else runs.push([i, i]);
  });
  const line = (a: number, b: number) =>
    days
      .slice(a, b + 1)
      .map((d, k) => `${k ? 'L' : 'M'}${x(a + k).toFixed(1)},${y(d.balance).toFixed(1)}`)
      .join('');
  const lowest = days.reduce((a, b) => (b.balance < a.balance ? b : a));
  const highest = days.reduce((a, b) => (b.balance > a.balance ? b : a));
  const below = days.filter((d) => d.balance < 0).length;
  const gaps = runs.length - 1;
  // a label at the first covered day of each month, skipped where it would run into the one before
  const labels: { i: number; text: string }[] = [];
  days.forEach((d, i) => {
    if (i > 0 && d.date.slice(0, 7) === days[i - 1].date.slice(0, 7)) return;
    if (labels.length && x(i) - x(labels[labels.length - 1].i) < 52) return;
    labels.push({ i, text: month(d.date).replace(/ \d{2}(\d{2})$/, " '$1") });
  });
  const summary =
    `${days.length} days covered from ${day(days[0].date)} to ${day(days[days.length - 1].date)}` +
    `${gaps ? ` with ${gaps} gap${gaps === 1 ? '' : 's'} no statement covers` : ''}: lowest ${usd(lowest.balance)} on ${day(lowest.date)}, ` +
    `highest ${usd(highest.balance)} on ${day(highest.date)}; ${below} day${below === 1 ? '' : 's'} below zero.`;
  return (
    <figure className="chart">
      <div className="chart-title" aria-hidden="true">
        End-of-day balance
      </div>
      <svg viewBox={`0 0 ${W} ${height}`} role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>Daily balance</title>
        <desc id={`${id}-d`}>{summary}</desc>
        {lo < 0 ? <rect x={PAD.left} y={y(0)} width={W - PAD.left - PAD.right} height={y(min) - y(0)} className="chart-negative" /> : null}
        <YAxis ticks={ticks} y={y} width={W} />
        {runs.map(([a, b]) => (
          <g key={a}>
            <path d={`${line(a, b)}L${x(b).toFixed(1)},${y(0)}L${x(a).toFixed(1)},${y(0)}Z`} className="chart-area" />
            <path d={line(a, b)} className="chart-line" />
          </g>
        ))}
        {runs.slice(1).map(([a]) => (
          <line key={a} x1={(x(a - 1) + x(a)) / 2} x2={(x(a - 1) + x(a)) / 2} y1={PAD.top} y2={height - PAD.bottom} className="chart-gap" />
        ))}
        <circle cx={x(days.indexOf(lowest))} cy={y(lowest.balance)} r={3.5} className="chart-low" />
        {labels.map((l) => (
          <text key={l.i} x={x(l.i)} y={height - 8} textAnchor="start" className="chart-label" aria-hidden="true">
            {l.text}
          </text>
        ))}
      </svg>
      <figcaption className="chart-legend">{summary}</figcaption>
    </figure>
  );
}
