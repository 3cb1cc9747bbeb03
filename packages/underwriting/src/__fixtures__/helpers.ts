/** Test helpers (excluded from the build). */
import type { StatementInput, StatementTransactionInput } from '../types';

export function tx(date: string, description: string, amount: number, balance: number | null = null): StatementTransactionInput {
  return { date, description, amount, balance };
}

export function statement(partial: Partial<StatementInput> & Pick<StatementInput, 'periodStart' | 'periodEnd'>): StatementInput {
  return {
    id: partial.id,
    bankName: partial.bankName ?? 'Test Bank',
    accountNumberLast4: partial.accountNumberLast4 ?? '1234',
    accountHolder: partial.accountHolder ?? 'Test Merchant LLC',
    periodStart: partial.periodStart,
    periodEnd: partial.periodEnd,
    openingBalance: partial.openingBalance ?? null,
    closingBalance: partial.closingBalance ?? null,
    ...(partial.currency !== undefined ? { currency: partial.currency } : {}),
    transactions: partial.transactions ?? [],
  };
}

/** mulberry32: a small seeded PRNG so property tests are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number) => String(n).padStart(2, '0');
export const ymd = (y: number, m: number, d: number) => `${y}-${pad(m)}-${pad(d)}`;
export const daysInMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

export interface RawMonth {
  year: number;
  month: number;
  transactions: { date: string; description: string; amount: number }[];
}

/**
 * Turn raw monthly transaction lists into statements with a consistent opening/closing chain and
 * printed running balances (sorted by date, stable).
 */
export function assemble(months: RawMonth[], opening: number, account = '1234'): StatementInput[] {
  let bal = opening;
  return months.map((m, k) => {
    const open = bal;
    const txs = [...m.transactions]
      .map((t, i) => ({ t, i }))
      .sort((a, b) => a.t.date.localeCompare(b.t.date) || a.i - b.i)
      .map(({ t }) => {
        bal = Math.round((bal + t.amount) * 100) / 100;
        return { date: t.date, description: t.description, amount: t.amount, balance: bal };
      });
    return statement({
      id: k + 1,
      accountNumberLast4: account,
      periodStart: ymd(m.year, m.month, 1),
      periodEnd: ymd(m.year, m.month, daysInMonth(m.year, m.month)),
      openingBalance: open,
      closingBalance: bal,
      transactions: txs,
    });
  });
}

const DEBITS = [
  'POS PURCHASE HOME DEPOT',
  'SYSCO FOODS',
  'COMCAST',
  'SHELL OIL',
  'ADP PAYROLL',
  'CHECK 1001',
  'DRAFTKINGS',
  'ATM WITHDRAWAL',
];
const CREDITS = ['SQUARE INC DEPOSIT', 'STRIPE TRANSFER', 'MOBILE DEPOSIT', 'WIRE FROM CUSTOMER', 'MISC CREDIT', 'REFUND'];

/** A random but valid deal: 1-6 consecutive months, mixed credits and debits, maybe a daily MCA. */
export function randomMonths(rnd: () => number): { months: RawMonth[]; opening: number } {
  const count = 1 + Math.floor(rnd() * 6);
  const startMonth = 1 + Math.floor(rnd() * 12);
  const mca = rnd() < 0.5;
  const months: RawMonth[] = [];
  for (let k = 0; k < count; k++) {
    const idx = startMonth - 1 + k;
    const year = 2023 + Math.floor(idx / 12);
    const month = (idx % 12) + 1;
    const dim = daysInMonth(year, month);
    const txs: RawMonth['transactions'] = [];
    const n = Math.floor(rnd() * 60);
    for (let i = 0; i < n; i++) {
      const date = ymd(year, month, 1 + Math.floor(rnd() * dim));
      if (rnd() < 0.45) {
        const amount = Math.round((50 + rnd() * (rnd() < 0.1 ? 30000 : 3000)) * 100) / 100;
        txs.push({ date, description: CREDITS[Math.floor(rnd() * CREDITS.length)], amount });
      } else {
        const amount = -Math.round((10 + rnd() * 2500) * 100) / 100;
        txs.push({ date, description: DEBITS[Math.floor(rnd() * DEBITS.length)], amount });
      }
    }
    if (rnd() < 0.2) txs.push({ date: ymd(year, month, 1 + Math.floor(rnd() * dim)), description: 'OVERDRAFT FEE', amount: -36 });
    if (mca) {
      for (let d = 1; d <= dim; d++) {
        const wd = new Date(Date.UTC(year, month - 1, d)).getUTCDay();
        if (wd !== 0 && wd !== 6) txs.push({ date: ymd(year, month, d), description: 'PEARL CAPITAL ACH DEBIT', amount: -275 });
      }
    }
    months.push({ year, month, transactions: txs });
  }
  return { months, opening: Math.round((rnd() * 20000 - 5000) * 100) / 100 };
}
