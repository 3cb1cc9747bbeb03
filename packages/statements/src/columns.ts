/**
 * Column bands of a statement table found from what the cells hold (dates, money, text), for tables
 * printed without header words, page by page (bands may sit elsewhere on odd and even pages).
 */
import { sortedNumbers } from './tokens';

export type ColumnRole = 'date' | 'date2' | 'desc' | 'debit' | 'credit' | 'amount' | 'balance' | 'checkno' | 'other';

export interface Column {
  role: ColumnRole;
  x0: number;
  x1: number;
  cx: number;
}

/** A cell of a table row, as the tokenizer classified it. */
export interface CellTok {
  kind: 'date' | 'amount' | 'int' | 'text';
  x0: number;
  x1: number;
  size: number;
  /** an amount's value as printed (its sign where it prints one) */
  value?: number;
}

/** Money bands of one page: right edges clustered (amounts are right-aligned), left to right. */
export interface MoneyBand {
  x0: number;
  x1: number;
  /** rows with a value in this band */
  rows: number;
}

/** Where a page's table sits: its money bands and the left edge of the dates that start its rows. */
export interface TableGeometry {
  bands: MoneyBand[];
  dateX0: number;
}

export interface InferredColumns extends TableGeometry {
  columns: Column[];
  /** what the bands were taken for, in words */
  reading: string;
  /** share of the running-balance checks that hold under the chosen reading (null: no balance column) */
  chainScore: number | null;
  /** how many readings were tried against the running balance */
  candidates: number;
}

const median = (xs: number[]): number => {
  const s = sortedNumbers(xs);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};

/**
 * The money bands of a page's dated rows: the trailing amounts of the rows (an amount followed by text
 * is part of a description), merged where they overlap horizontally (right-, left- or centre-aligned
 * columns alike). Rows where a date follows an amount (side-by-side lists: "01/05 250.00 01/06 80.00")
 * are left out.
 */
export function moneyBands(rows: CellTok[][]): { bands: MoneyBand[]; rowsUsed: CellTok[][] } {
  const used = rows.filter((r) => !r.some((t, i) => t.kind === 'date' && r.slice(0, i).some((x) => x.kind === 'amount')));
  const cells: Array<{ x0: number; x1: number; row: number }> = [];
  used.forEach((r, i) => {
    let k = r.length;
    while (k > 0 && r[k - 1].kind === 'amount') k--;
    for (const t of r.slice(k)) cells.push({ x0: t.x0, x1: t.x1, row: i });
  });
  cells.sort((a, b) => a.x0 - b.x0);
  const bands: Array<MoneyBand & { members: Set<number> }> = [];
  for (const c of cells) {
    const last = bands[bands.length - 1];
    if (last && c.x0 < last.x1 - 0.5) {
      last.members.add(c.row);
      last.x1 = Math.max(last.x1, c.x1);
    } else bands.push({ x0: c.x0, x1: c.x1, rows: 0, members: new Set([c.row]) });
  }
  return { bands: bands.map((b) => ({ x0: b.x0, x1: b.x1, rows: b.members.size })), rowsUsed: used };
}

const near = (a: number, b: number) => Math.abs(a - b) < 0.005;

/**
 * The running balance as oracle for column roles: rows are read under a candidate assignment
 * (which band is the balance, which are debits and credits) and each printed balance is checked
 * against the previous one. Returns [checks, passed].
 */
function chainUnder(rows: CellTok[][], bands: MoneyBand[], roles: ColumnRole[]): [number, number] {
  const inBand = (t: CellTok, b: MoneyBand) => t.kind === 'amount' && t.x1 >= b.x0 - 1 && t.x1 <= b.x1 + 1;
  let prev: number | null = null;
  let checks = 0;
  let passed = 0;
  for (const r of rows) {
    let bal: number | null = null;
    let delta = 0;
    let unsigned = false;
    bands.forEach((b, i) => {
      const t = r.find((x) => inBand(x, b));
      if (!t || t.value === undefined) return;
      const v = t.value;
      if (roles[i] === 'balance') bal = v;
      else if (roles[i] === 'debit') delta -= Math.abs(v);
      else if (roles[i] === 'credit') delta += Math.abs(v);
      else if (v < 0) delta += v;
      else {
        delta += v;
        unsigned = true;
      }
    });
    if (bal === null) {
      if (prev !== null) prev = Math.round((prev + delta) * 100) / 100;
      continue;
    }
    if (prev !== null) {
      checks++;
      const d = Math.round(((bal as number) - prev) * 100) / 100;
      if (near(d, delta) || (unsigned && near(d, -delta))) passed++;
    }
    prev = bal;
  }
  return [checks, passed];
}

/** Where the table of a page's dated rows sits (null under 3 dated rows with money). */
export function tableGeometry(rows: CellTok[][]): (TableGeometry & { rowsUsed: CellTok[][] }) | null {
  const dated = rows.filter((r) => r.length && r[0].kind === 'date' && r.some((t) => t.kind === 'amount'));
  if (dated.length < 3) return null;
  const { bands, rowsUsed } = moneyBands(dated);
  if (!bands.length) return null;
  return { bands, rowsUsed, dateX0: median(dated.map((r) => r[0].x0)) };
}

/**
 * Column roles from content: dated rows start with a date band, the money bands are told apart by how
 * they are filled and by the running balance. Two bands filled on the same rows are an amount and a
 * balance; two bands never filled on the same row are debits and credits (which is which: the running
 * balance or the printed totals decide later, see chooseSignReading); with three bands every choice
 * of the balance band and of the debit side is tried against the running balance and the one under
 * which most printed balances follow is taken. Returns null when the content does not say.
 */
export function inferColumns(rows: CellTok[][]): InferredColumns | null {
  const geo = tableGeometry(rows);
  if (!geo || geo.bands.length > 3 || geo.rowsUsed.length < 3) return null;
  const { bands, rowsUsed } = geo;
  const inBand = (t: CellTok, b: MoneyBand) => t.kind === 'amount' && t.x1 >= b.x0 - 1 && t.x1 <= b.x1 + 1;
  const both = (a: MoneyBand, b: MoneyBand) => rowsUsed.filter((r) => r.some((t) => inBand(t, a)) && r.some((t) => inBand(t, b))).length;
  const n = rowsUsed.length;
  let cands: ColumnRole[][];
  if (bands.length === 1) cands = [['amount']];
  else if (bands.length === 2) {
    const shared = both(bands[0], bands[1]);
    if (shared >= n * 0.6)
      cands = [
        ['amount', 'balance'],
        ['balance', 'amount'],
      ];
    else if (shared <= n * 0.1)
      cands = [
        ['debit', 'credit'],
        ['credit', 'debit'],
      ];
    else return null;
  } else {
    cands = [];
    for (let k = 0; k < 3; k++) {
      const others = [0, 1, 2].filter((i) => i !== k);
      if (bands[k].rows < n * 0.6 || both(bands[others[0]], bands[others[1]]) > n * 0.1) continue;
      for (const [d, c] of [others, [...others].reverse()]) {
        const roles: ColumnRole[] = [];
        roles[k] = 'balance';
        roles[d] = 'debit';
        roles[c] = 'credit';
        cands.push(roles);
      }
    }
    if (!cands.length) return null;
  }
  // the first candidate is the conventional layout (balance last, debits left of credits): kept on a tie
  let best = cands[0];
  let bestScore: number | null = null;
  for (const roles of cands) {
    const [checks, passed] = chainUnder(rowsUsed, bands, roles);
    if (!checks) continue;
    const score = passed / checks;
    if (bestScore === null || score > bestScore) {
      best = roles;
      bestScore = score;
    }
  }
  const dateToks = rowsUsed.map((r) => r[0]);
  const dateX1 = Math.max(...dateToks.map((t) => t.x1));
  const columns: Column[] = [{ role: 'date', x0: Math.min(...dateToks.map((t) => t.x0)), x1: dateX1, cx: 0 }];
  // the description runs from the date to the first money band: amounts inside it stay text
  columns.push({ role: 'desc', x0: dateX1 + 1, x1: bands[0].x0 - 1, cx: 0 });
  bands.forEach((b, i) => columns.push({ role: best[i], x0: b.x0, x1: b.x1, cx: 0 }));
  for (const c of columns) c.cx = (c.x0 + c.x1) / 2;
  return { columns, bands, dateX0: geo.dateX0, reading: best.join(', '), chainScore: bestScore, candidates: cands.length };
}

/**
 * How far a page's table sits from the page where its header was printed (odd and even pages often
 * have different margins): the median move of the money bands matched in order when both pages have
 * as many, else the move of the dates' left edge. 0 when nothing can be measured.
 */
export function pageShift(ref: TableGeometry | null, page: TableGeometry | null): number {
  if (!ref || !page) return 0;
  if (ref.bands.length === page.bands.length) return median(ref.bands.map((b, i) => page.bands[i].x1 - b.x1));
  return page.dateX0 - ref.dateX0;
}

/** The columns moved right by `dx` points. */
export function shiftColumns(cols: Column[], dx: number): Column[] {
  return cols.map((c) => ({ ...c, x0: c.x0 + dx, x1: c.x1 + dx, cx: c.cx + dx }));
}
