/**
 * CSV cells (RFC 4180) that a spreadsheet cannot run: a text cell that starts like a formula
 * (`=`, `+`, `-`, `@`, tab, carriage return, also after leading spaces) gets a leading apostrophe
 * (OWASP "CSV injection"). Numbers are written as numbers and never altered, so `-95.00` stays a
 * number a spreadsheet can sum.
 */

const FORMULA_START = /^[\s]*[=+\-@\t\r]|^[\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function textCell(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A money amount as stored (numeric(16,2): a string from the driver, or a number): two decimals, no grouping. */
export function moneyCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return '';
  return n.toFixed(2);
}

export function intCell(value: number | null | undefined): string {
  return value === null || value === undefined ? '' : String(Math.trunc(value));
}

export function boolCell(value: boolean | null | undefined): string {
  return value === null || value === undefined ? '' : value ? 'true' : 'false';
}

export function csvLine(cells: string[]): string {
  return `${cells.join(',')}\r\n`;
}
