/** Test helper: the one-page statement of "Plover Savings Bank" the tamper specs read and edit (eight rows, a running balance). */
import { rows, Txt } from './make-pdf';

export const PLOVER_ROWS: string[][] = [
  ['03/01/2025', 'Card purchase Grocer', '50.00', '', '950.00'],
  ['05/01/2025', 'Payroll deposit', '', '1,200.00', '2,150.00'],
  ['08/01/2025', 'Rent', '900.00', '', '1,250.00'],
  ['11/01/2025', 'Card purchase Fuel', '45.10', '', '1,204.90'],
  ['14/01/2025', 'Transfer in', '', '300.00', '1,504.90'],
  ['18/01/2025', 'Utility bill', '120.35', '', '1,384.55'],
  ['22/01/2025', 'Card purchase Cafe', '8.40', '', '1,376.15'],
  ['27/01/2025', 'Customer payment', '', '640.00', '2,016.15'],
];

export interface PloverLayout {
  /** column x positions (negative: right-aligned at -x); default date, description, then three right-aligned amounts */
  x?: number[];
  /** top-left y of the first row's baseline, the line height and the rows' font size */
  y0?: number;
  lh?: number;
  size?: number;
  closing?: string;
}

export const PLOVER_X = [40, 110, -380, -460, -560];

export function ploverPage(rowsIn: string[][] = PLOVER_ROWS, o: PloverLayout = {}): Txt[] {
  const x = o.x ?? PLOVER_X;
  return [
    { x: 40, y: 40, text: 'Plover Savings Bank', size: 12, bold: true },
    { x: 40, y: 58, text: 'Statement period 01/01/2025 to 31/01/2025' },
    { x: 40, y: 70, text: 'Opening balance 1,000.00' },
    { x: 40, y: 82, text: `Closing balance ${o.closing ?? '2,016.15'}` },
    ...rows([['Date', 'Description', 'Withdrawals', 'Deposits', 'Balance']], x, 110),
    ...rows(rowsIn, x, o.y0 ?? 125, o.lh ?? 12, o.size ?? 9),
  ];
}
