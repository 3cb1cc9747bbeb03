import { LineCapStyle, rgb } from 'pdf-lib';
import { COLOR, ReportWriter, scoreColor } from './layout';

/** Vector charts (lines and rectangles only, no images): they stay sharp at any zoom and print well. */

export function niceTicks(min: number, max: number, count = 5): number[] {
  if (min === max) max = min + 1;
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 0.001; v += step) ticks.push(Math.round(v * 1e6) / 1e6);
  if (ticks[ticks.length - 1] < max) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

export function shortMoney(n: number): string {
  const a = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  if (a >= 1e6) return `${sign}$${(a / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
  if (a >= 1e3) return `${sign}$${(a / 1e3).toFixed(a >= 1e4 ? 0 : 1)}k`;
  return `${sign}$${a.toFixed(0)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export const monthLabel = (ym: string) => `${MONTHS[Number(ym.slice(5, 7)) - 1] ?? ym} ${ym.slice(2, 4)}`;

interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Y axis with grid lines and money labels; returns the value-to-y mapping. */
function yAxis(w: ReportWriter, f: Frame, ticks: number[]): (v: number) => number {
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const toY = (v: number) => f.y + ((v - lo) / (hi - lo)) * f.height;
  for (const t of ticks) {
    const y = toY(t);
    w.page.drawLine({
      start: { x: f.x, y },
      end: { x: f.x + f.width, y },
      thickness: t === 0 ? 0.8 : 0.4,
      color: t === 0 ? COLOR.faint : COLOR.line,
    });
    w.text(shortMoney(t), f.x - 48, y - 3, { size: 7, color: COLOR.muted, align: 'right', width: 44 });
  }
  return toY;
}

function legend(w: ReportWriter, x: number, y: number, items: { label: string; color: ReturnType<typeof rgb> }[]): void {
  let cx = x;
  for (const item of items) {
    w.page.drawRectangle({ x: cx, y: y - 1, width: 8, height: 8, color: item.color });
    w.text(item.label, cx + 12, y, { size: 7.5, color: COLOR.muted });
    cx += 18 + w.fonts.regular.widthOfTextAtSize(item.label, 7.5) + 10;
  }
}

/** Monthly bars: deposits (light) behind revenue (solid), one group per month. */
export function monthlyRevenueChart(w: ReportWriter, months: { month: string; deposits: number; revenue: number }[], height = 170): void {
  w.ensure(height + 30);
  const f: Frame = { x: 44 + 52, y: w.y - height + 6, width: 612 - 88 - 56, height: height - 30 };
  legend(w, f.x, w.y - 12, [
    { label: 'Total deposits', color: COLOR.accentSoft },
    { label: 'Revenue (true deposits)', color: COLOR.accent },
  ]);
  const max = Math.max(1, ...months.map((m) => Math.max(m.deposits, m.revenue)));
  const toY = yAxis(w, f, niceTicks(0, max, 4));
  const slot = f.width / Math.max(1, months.length);
  const bar = Math.min(34, slot * 0.62);
  months.forEach((m, i) => {
    const cx = f.x + slot * i + slot / 2;
    const hDep = toY(m.deposits) - f.y;
    const hRev = toY(m.revenue) - f.y;
    w.page.drawRectangle({ x: cx - bar / 2, y: f.y, width: bar, height: Math.max(0, hDep), color: COLOR.accentSoft });
    w.page.drawRectangle({ x: cx - bar / 2 + bar * 0.18, y: f.y, width: bar * 0.64, height: Math.max(0, hRev), color: COLOR.accent });
    w.text(monthLabel(m.month), cx - slot / 2, f.y - 12, { size: 7, color: COLOR.muted, align: 'center', width: slot });
  });
  w.y -= height + 14;
}

/** Daily balance line; days below zero shaded red, the zero line drawn. */
export function dailyBalanceChart(w: ReportWriter, points: { date: string; balance: number }[], height = 170): void {
  w.ensure(height + 30);
  const f: Frame = { x: 44 + 52, y: w.y - height + 6, width: 612 - 88 - 56, height: height - 30 };
  legend(w, f.x, w.y - 12, [
    { label: 'End-of-day balance', color: COLOR.ink },
    { label: 'Negative balance day', color: COLOR.badSoft },
  ]);
  if (!points.length) {
    w.text('No daily balances', f.x, f.y + f.height / 2, { size: 9, color: COLOR.muted });
    w.y -= height + 14;
    return;
  }
  const values = points.map((p) => p.balance);
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), 4);
  const toY = yAxis(w, f, ticks);
  const n = points.length;
  const step = n > 1 ? f.width / (n - 1) : f.width;
  const toX = (i: number) => f.x + (n > 1 ? i * step : f.width / 2);
  // negative days first, so the line is drawn over them
  const band = Math.max(1.2, step);
  points.forEach((p, i) => {
    if (p.balance < 0)
      w.page.drawRectangle({ x: toX(i) - band / 2, y: f.y, width: band, height: f.height, color: COLOR.badSoft, opacity: 0.9 });
  });
  const path = points.map((p, i) => `${i === 0 ? 'M' : 'L'} ${toX(i).toFixed(2)} ${(-toY(p.balance)).toFixed(2)}`).join(' ');
  w.page.drawSvgPath(path, { x: 0, y: 0, borderColor: COLOR.ink, borderWidth: 1.1, borderLineCap: LineCapStyle.Round });
  // month ticks on the x axis
  let last = '';
  points.forEach((p, i) => {
    const ym = p.date.slice(0, 7);
    if (ym === last) return;
    last = ym;
    w.page.drawLine({ start: { x: toX(i), y: f.y }, end: { x: toX(i), y: f.y - 3 }, thickness: 0.5, color: COLOR.faint });
    w.text(monthLabel(ym), toX(i) + 2, f.y - 12, { size: 7, color: COLOR.muted });
  });
  w.y -= height + 14;
}

const SCORE_ROW = 19;

/** The height `scoreBars` takes for `n` items (a heading keeps it on its page). */
export const scoreBarsHeight = (n: number) => SCORE_ROW * n + 20;

/** Horizontal score bars 0-100, coloured by score, with an optional note at the right (weight, contribution). */
export function scoreBars(w: ReportWriter, items: { label: string; score: number; note?: string }[]): void {
  const rowH = SCORE_ROW;
  const labelW = 150;
  const noteW = 118;
  const x0 = 44 + labelW;
  const width = 612 - 88 - labelW - noteW - 36;
  w.ensure(scoreBarsHeight(items.length));
  // scale
  for (const t of [0, 25, 50, 75, 100]) {
    const x = x0 + (t / 100) * width;
    w.text(String(t), x - 10, w.y - 8, { size: 6.5, color: COLOR.faint, align: 'center', width: 20 });
  }
  w.y -= 12;
  const top = w.y;
  for (const t of [0, 25, 50, 75, 100]) {
    const x = x0 + (t / 100) * width;
    w.page.drawLine({
      start: { x, y: top },
      end: { x, y: top - rowH * items.length },
      thickness: 0.4,
      color: COLOR.line,
      dashArray: t === 0 ? undefined : [2, 2],
    });
  }
  for (const item of items) {
    const score = Math.max(0, Math.min(100, item.score));
    const c = scoreColor(score);
    const cy = w.y - rowH / 2;
    // a label too long for its column is set smaller before anything is cut
    const labelSize = Math.max(6.5, Math.min(8.5, (8.5 * (labelW - 8)) / Math.max(1, w.width(item.label, 8.5))));
    w.text(item.label, 44, cy - 3, { size: labelSize, color: COLOR.text, width: labelW - 8 });
    w.page.drawRectangle({ x: x0, y: cy - 5, width, height: 10, color: COLOR.panel });
    w.page.drawRectangle({ x: x0, y: cy - 5, width: (score / 100) * width, height: 10, color: c.strong });
    w.text(score.toFixed(0), x0 + width + 6, cy - 3, { size: 8.5, font: w.fonts.semibold, color: c.strong });
    if (item.note) w.text(item.note, 612 - 44 - noteW, cy - 3, { size: 7.5, color: COLOR.muted, align: 'right', width: noteW });
    w.y -= rowH;
  }
  w.y -= 8;
}
