const money0 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
const money2 = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const dateTime = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const dateOnly = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
const monthName = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', timeZone: 'UTC' });

const missing = '—';

export const usd = (n: number | null | undefined): string => (n === null || n === undefined ? missing : money0.format(n));
export const usdCents = (n: number | null | undefined): string => (n === null || n === undefined ? missing : money2.format(n));
export const num = (n: number | null | undefined): string => (n === null || n === undefined ? missing : number.format(n));
export const pct = (n: number | null | undefined): string => (n === null || n === undefined ? missing : `${number.format(n * 100)}%`);
export const when = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : missing);
export const day = (iso: string | null | undefined): string => (iso ? dateOnly.format(new Date(`${iso.slice(0, 10)}T00:00:00Z`)) : missing);
export const month = (yyyyMm: string): string => monthName.format(new Date(`${yyyyMm.slice(0, 7)}-01T00:00:00Z`));

/** `under_review` -> `Under review`. */
export const label = (s: string | null | undefined): string => (s ? s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, ' ') : missing);

/** A score's tone, as the PDF report colours it: good from 70, warn from 40, bad below. */
export function scoreTone(score: number | null | undefined): 'good' | 'warn' | 'bad' | 'none' {
  if (score === null || score === undefined) return 'none';
  const shown = Math.round(score);
  return shown >= 70 ? 'good' : shown >= 40 ? 'warn' : 'bad';
}

/** `Sep 1, 2018 – Sep 21, 2018`, or the one end that is known. */
export function period(start: string | null | undefined, end: string | null | undefined): string {
  if (start && end) return `${day(start)} – ${day(end)}`;
  if (end) return `to ${day(end)}`;
  if (start) return `from ${day(start)}`;
  return missing;
}
