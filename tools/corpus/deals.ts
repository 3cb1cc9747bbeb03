/**
 * Generated merchant deals whose answer is known: two accounts of one merchant over three months,
 * with 1-3 lender positions (daily or weekly payments, a funding deposit, sometimes a renewal),
 * transfers between the two accounts and owner injections. The generator writes the expected answer
 * beside the statements (transactions as a parser returns them, not PDFs). Not real data: a check
 * of the rules against their own definition, never evidence of real-world quality.
 */
import type { StatementInput, StatementTransactionInput } from '@ledgerlens/underwriting';
import { Rng } from './rng';

export type Cadence = 'daily' | 'weekly';

export interface PositionTruth {
  /** the lender's name as printed in its descriptors */
  lender: string;
  cadence: Cadence;
  /** the payment now (after a renewal, the new one) */
  payment: number;
  /** the payment before a renewal; null without one */
  previous_payment: number | null;
  funding: { date: string; amount: number } | null;
  renewal: { date: string; amount: number } | null;
  payment_count: number;
}

export interface TransferTruth {
  amount: number;
  debit_date: string;
  credit_date: string;
}

export interface DealTruth {
  name: string;
  months: number;
  positions: PositionTruth[];
  transfers: TransferTruth[];
  injections: { date: string; amount: number; description: string }[];
  /** statements an old file adds (two years before the deal): stale, left out of every figure */
  stale_statement_ids: string[];
  /** customer revenue deposits: neither transfers, lender funding nor owner money */
  true_revenue_total: number;
  monthly_true_revenue: number;
}

export interface GeneratedDeal {
  statements: StatementInput[];
  truth: DealTruth;
}

/** Lender descriptors (names on the package's lender list, and one that is not: found by recurrence). */
const LENDERS = [
  { name: 'ONDECK CAPITAL', debit: 'ONDECK CAPITAL ACH DEBIT', credit: 'ONDECK CAPITAL FUNDING' },
  { name: 'KALAMATA CAPITAL', debit: 'KALAMATA CAPITAL GRP ACH PMT', credit: 'KALAMATA CAPITAL GRP FUNDING' },
  { name: 'FORA FINANCIAL', debit: 'FORA FINANCIAL DEBIT', credit: 'FORA FINANCIAL ADVANCE' },
  { name: 'CREDIBLY', debit: 'CREDIBLY ACH PAYMENT', credit: 'CREDIBLY ACH CREDIT' },
  { name: 'LIBERTAS', debit: 'LIBERTAS FUNDING DEBIT', credit: 'LIBERTAS FUNDING WIRE' },
  { name: 'SAMSON GROWTH LLC', debit: 'SAMSON GROWTH LLC ACH DEBIT', credit: 'SAMSON GROWTH LLC ACH CREDIT' },
] as const;

const REVENUE = ['SQUARE INC DEPOSIT', 'STRIPE TRANSFER ST-', 'CLOVER MERCHANT DEP', 'MOBILE DEPOSIT CHECK', 'ACH CREDIT CUSTOMER INV'];
const EXPENSES = [
  'SYSCO FOODS',
  'ADP PAYROLL',
  'HOME DEPOT POS PURCHASE',
  'COMCAST BUSINESS',
  'SHELL OIL',
  'CITY WATER UTIL',
  'LANDLORD RENT',
];
const INJECTIONS = ['OWNER CONTRIBUTION DEPOSIT', 'TRANSFER FROM J SMITH PERSONAL', 'CAPITAL INJECTION OWNER'];

const pad = (n: number) => String(n).padStart(2, '0');
const iso = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
const dayOf = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / 86_400_000;
const weekday = (d: number) => new Date(d * 86_400_000).getUTCDay();
const isBusinessDay = (d: number) => weekday(d) !== 0 && weekday(d) !== 6;
const r2 = (x: number) => Math.round(x * 100) / 100;

interface Row {
  day: number;
  account: 0 | 1;
  description: string;
  amount: number;
}

/** A merchant deal from a seed: same seed, same deal. */
export function generateDeal(seed: number): GeneratedDeal {
  const rng = new Rng(seed);
  const year = rng.int(2024, 2025);
  const firstMonth = rng.int(1, 9);
  const start = dayOf(year, firstMonth, 1);
  const end = dayOf(year, firstMonth + 3, 1) - 1;
  const rows: Row[] = [];
  const revenue = revenueRows(rng, start, end, rows);
  expenseRows(rng, start, end, rows);
  const positions = positionRows(rng, start, end, rows);
  const transfers = transferRows(rng, start, end, rows);
  const injections = injectionRows(rng, start, end, rows);
  const months = 3;
  const statements = statementsOf(rng, seed, year, firstMonth, rows);
  const stale = rng.chance(0.3) ? [oldStatement(rng, seed, statements[0])] : [];
  return {
    statements: [...statements, ...stale],
    truth: {
      name: `deal-${seed}`,
      months,
      positions,
      transfers,
      injections,
      stale_statement_ids: stale.map((s) => String(s.id)),
      true_revenue_total: revenue,
      monthly_true_revenue: r2(revenue / months),
    },
  };
}

function revenueRows(rng: Rng, start: number, end: number, rows: Row[]): number {
  const daily = rng.money(1500, 6000);
  let total = 0;
  for (let d = start; d <= end; d++) {
    if (!isBusinessDay(d)) continue;
    const n = rng.int(1, 2);
    for (let k = 0; k < n; k++) {
      const desc = rng.pick(REVENUE);
      const amount = rng.money(daily * 0.3, daily * 0.9);
      rows.push({ day: d, account: 0, description: desc.endsWith('-') ? `${desc}${rng.int(100000, 999999)}` : desc, amount });
      total += Math.round(amount * 100);
    }
  }
  return total / 100;
}

function expenseRows(rng: Rng, start: number, end: number, rows: Row[]): void {
  for (let d = start; d <= end; d++) {
    if (!isBusinessDay(d) || !rng.chance(0.7)) continue;
    rows.push({ day: d, account: 0, description: rng.pick(EXPENSES), amount: -rng.money(150, 2500) });
  }
}

/** 1-3 positions, each from another lender: a funding deposit, then daily or weekly payments; sometimes a renewal. */
function positionRows(rng: Rng, start: number, end: number, rows: Row[]): PositionTruth[] {
  const count = rng.int(1, 3);
  const lenders = [...LENDERS];
  for (let i = lenders.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [lenders[i], lenders[j]] = [lenders[j], lenders[i]];
  }
  lenders.length = count;
  return lenders.map((l) => {
    const cadence: Cadence = rng.chance(0.6) ? 'daily' : 'weekly';
    const fundingAmount = rng.int(10, 60) * 1000;
    const funded = rng.chance(0.6) ? start + rng.int(0, 10) : null;
    const firstPay = (funded ?? start) + (funded !== null ? 3 : 0);
    let payment = r2((fundingAmount * 1.35) / (cadence === 'daily' ? 130 : 26));
    const payDay = 1 + rng.int(0, 4); // weekday of a weekly payment
    const renewalDay = rng.chance(0.35) ? start + rng.int(40, 55) : null;
    let previous: number | null = null;
    let renewal: PositionTruth['renewal'] = null;
    let n = 0;
    if (funded !== null) rows.push({ day: funded, account: 0, description: l.credit, amount: fundingAmount });
    for (let d = firstPay; d <= end; d++) {
      if (renewalDay !== null && d === renewalDay) {
        const amount = rng.int(10, 40) * 1000;
        renewal = { date: iso(d), amount };
        rows.push({ day: d, account: 0, description: l.credit, amount });
        previous = payment;
        payment = r2(payment + (amount * 1.35) / (cadence === 'daily' ? 130 : 26) / 2);
      }
      if (!isBusinessDay(d) || (cadence === 'weekly' && weekday(d) !== payDay)) continue;
      rows.push({ day: d, account: 0, description: l.debit, amount: -payment });
      n++;
    }
    return {
      lender: l.name,
      cadence,
      payment,
      previous_payment: previous,
      funding: funded !== null ? { date: iso(funded), amount: fundingAmount } : null,
      renewal,
      payment_count: n,
    };
  });
}

/** Money moved between the two accounts, both ways; the credit lands the same day or up to 3 days later. */
function transferRows(rng: Rng, start: number, end: number, rows: Row[]): TransferTruth[] {
  const out: TransferTruth[] = [];
  const count = rng.int(2, 6);
  const used = new Set<number>();
  for (let k = 0; k < count; k++) {
    let amount = rng.int(5, 80) * 100;
    while (used.has(amount)) amount += 100;
    used.add(amount);
    const debitDay = start + rng.int(0, end - start - 3);
    const creditDay = debitDay + rng.int(0, 3);
    const toSavings = rng.chance(0.6);
    const [from, to] = toSavings ? ([0, 1] as const) : ([1, 0] as const);
    rows.push({
      day: debitDay,
      account: from,
      description: rng.pick(['ONLINE TRANSFER TO CHK', 'ONLINE TRANSFER TO SAV', 'WEB XFER OUT']),
      amount: -amount,
    });
    // the receiving side's wording varies: sometimes it does not read as a transfer at all
    rows.push({ day: creditDay, account: to, description: rng.pick(['ONLINE TRANSFER FROM CHK', 'DEPOSIT', 'WEB XFER IN']), amount });
    out.push({ amount, debit_date: iso(debitDay), credit_date: iso(creditDay) });
  }
  return out;
}

function injectionRows(rng: Rng, start: number, end: number, rows: Row[]): DealTruth['injections'] {
  const out: DealTruth['injections'] = [];
  for (let k = rng.int(0, 2); k > 0; k--) {
    const day = start + rng.int(0, end - start);
    const amount = rng.int(2, 20) * 500;
    const description = rng.pick(INJECTIONS);
    rows.push({ day, account: 0, description, amount });
    out.push({ date: iso(day), amount, description });
  }
  return out;
}

/** A statement of the operating account two years before `first`, with revenue of its own (not the deal's). */
function oldStatement(rng: Rng, seed: number, first: StatementInput): StatementInput {
  const y = Number(first.periodStart!.slice(0, 4)) - 2;
  const mo = Number(first.periodStart!.slice(5, 7));
  const from = dayOf(y, mo, 1);
  const to = dayOf(y, mo + 1, 1) - 1;
  let balance = rng.money(2000, 9000);
  const opening = balance;
  const transactions: StatementTransactionInput[] = [];
  for (let d = from; d <= to; d++) {
    if (!isBusinessDay(d)) continue;
    const amount = rng.money(2000, 9000);
    balance = r2(balance + amount);
    transactions.push({ date: iso(d), description: 'SQUARE INC DEPOSIT', amount, balance });
  }
  return {
    ...first,
    id: `${seed}-old`,
    periodStart: iso(from),
    periodEnd: iso(to),
    openingBalance: opening,
    closingBalance: balance,
    transactions,
  };
}

/** Monthly statements of each account, balances chained; the second account's number is sometimes unprinted. */
function statementsOf(rng: Rng, seed: number, year: number, firstMonth: number, rows: Row[]): StatementInput[] {
  const bank = rng.pick(['First Harbor Bank', 'Summit Ridge Bank', 'Prairie Trust Bank']);
  const last4 = [String(rng.int(1000, 9999)), rng.chance(0.5) ? String(rng.int(1000, 9999)) : null];
  const statements: StatementInput[] = [];
  for (const account of [0, 1] as const) {
    let balance = account === 0 ? rng.money(5000, 40000) : rng.money(1000, 15000);
    for (let m = 0; m < 3; m++) {
      const y = year + Math.floor((firstMonth - 1 + m) / 12);
      const mo = ((firstMonth - 1 + m) % 12) + 1;
      const from = dayOf(y, mo, 1);
      const to = dayOf(y, mo + 1, 1) - 1;
      const opening = balance;
      const txs: StatementTransactionInput[] = rows
        .filter((r) => r.account === account && r.day >= from && r.day <= to)
        .sort((a, b) => a.day - b.day || b.amount - a.amount)
        .map((r) => {
          balance = r2(balance + r.amount);
          return { date: iso(r.day), description: r.description, amount: r.amount, balance };
        });
      statements.push({
        id: `${seed}-${account}-${m}`,
        bankName: bank,
        accountNumberLast4: last4[account],
        accountHolder: 'Generated Merchant LLC',
        periodStart: `${y}-${pad(mo)}-01`,
        periodEnd: iso(to),
        openingBalance: opening,
        closingBalance: balance,
        currency: 'USD',
        transactions: txs,
      });
    }
  }
  return statements;
}
