/**
 * Eight statement layouts modelled on real US business checking statements.
 * These only RENDER a StatementModel; the parser never sees this file.
 */
import { Col, drawHeader, drawRow, Writer } from './pdfdoc';
import { d, fmtMoney, StatementModel, TruthTransaction } from './model';
import { Rng } from './rng';
import { WORLD_LAYOUTS } from './layouts-world';

export interface Rendered {
  bytes: Uint8Array;
  /** transactions as printed (balance = printed running balance or null) */
  rows: TruthTransaction[];
}

export interface Layout {
  name: string;
  /** Dec->Jan periods: in half of the statements, or in all of them */
  crossYear?: boolean | 'always';
  /** prints the bank's charter ("Member FDIC"): the statement's currency is the US dollar by default */
  charter?: boolean;
  render(m: StatementModel, r: Rng): Promise<Rendered>;
}

const money = fmtMoney;
const dollars = (n: number) => `$${money(n)}`;
const neg = (n: number) => (n < 0 ? `-${money(n)}` : money(n));
const last4 = (a: string) => a.slice(-4);
const masked = (a: string, ch = 'X') => ch.repeat(a.length - 4) + last4(a);
const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;
const byKind = (m: StatementModel, ...k: TruthTransaction['kind'][]) => m.transactions.filter((t) => k.includes(t.kind));
const lastOfDay = (txs: TruthTransaction[], i: number) => i === txs.length - 1 || txs[i + 1].date !== txs[i].date;
function dailyBalances(m: StatementModel): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  m.transactions.forEach((t, i, a) => {
    if (lastOfDay(a, i)) out.push([t.date, t.balance!]);
  });
  return out;
}
const noBal = (t: TruthTransaction): TruthTransaction => ({ ...t, balance: null });

/** A customer-service block printed beside the address: headings and contact lines, no holder. */
function serviceBlock(w: Writer, m: StatementModel, x: number, cy: number) {
  w.text('CUSTOMER SERVICE INFORMATION', x, cy, 8, true);
  w.text(`Service Center: 1-800-555-${m.accountNumber.slice(-4)}`, x, cy + 11, 7.5);
  w.text('Hearing Impaired: 711', x, cy + 22, 7.5);
}

/** Address block used by several layouts. */
function addressBlock(w: Writer, m: StatementModel, x: number, cy: number, size = 9.5, upper = false) {
  const f = (s: string) => (upper ? s.toUpperCase() : s);
  w.text(f(m.accountHolder), x, cy, size, true);
  w.text(f(m.holderAddress[0]), x, cy + size * 1.3, size);
  w.text(f(m.holderAddress[1]), x, cy + size * 2.6, size);
}

// ------------------------------------------------------------------ 1. sectioned, unsigned, checks side by side
const sectioned: Layout = {
  name: 'sectioned_unsigned',
  async render(m) {
    const w = await Writer.create('helvetica');
    const S = 8.5;
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(`${d.long(m.periodStart)} through ${d.long(m.periodEnd)}`, 330, 40, 8);
      ww.text(`Account Number: ${m.accountNumber}`, 330, 51, 8);
      ww.cy = 75;
    };
    w.text(m.bankName, 40, 48, 17, true);
    w.text(m.bankAddress, 40, 62, 7.5);
    w.text(`${d.long(m.periodStart)} through ${d.long(m.periodEnd)}`, 330, 48, 8.5);
    w.text(`Account Number: ${m.accountNumber}`, 330, 60, 8.5);
    addressBlock(w, m, 60, 110, 9.5, true);
    // a service block beside the address (large US banks): a heading, never the holder
    serviceBlock(w, m, 330, 110);
    w.cy = 175;
    w.text('CHECKING SUMMARY', 40, w.cy, 10, true);
    w.text(m.accountType, 200, w.cy, 10, true);
    w.cy += 16;
    const dep = byKind(m, 'deposit');
    const chk = byKind(m, 'check');
    const card = byKind(m, 'card');
    const ele = byKind(m, 'electronic');
    const fee = byKind(m, 'fee');
    const summ: Array<[string, string, string]> = [
      ['Beginning Balance', '', dollars(m.openingBalance)],
      ['Deposits and Additions', String(dep.length), money(sum(dep.map((t) => t.amount)))],
      ['Checks Paid', String(chk.length), neg(sum(chk.map((t) => t.amount)))],
      ['ATM & Debit Card Withdrawals', String(card.length), neg(sum(card.map((t) => t.amount)))],
      ['Electronic Withdrawals', String(ele.length), neg(sum(ele.map((t) => t.amount)))],
      ['Fees', String(fee.length), neg(sum(fee.map((t) => t.amount)))],
      ['Ending Balance', String(m.transactions.length), dollars(m.closingBalance)],
    ];
    w.text('INSTANCES', 300, w.cy, 7.5, true);
    w.right('AMOUNT', 460, w.cy, 7.5, true);
    w.cy += 12;
    for (const [a, b, c] of summ) {
      w.text(a, 60, w.cy, S, a.includes('Balance'));
      w.right(b, 340, w.cy, S);
      w.right(c, 460, w.cy, S, a.includes('Balance'));
      w.cy += 12;
    }
    w.cy += 14;
    const cols: Col[] = [
      { key: 'date', header: 'DATE', x: 40, w: 40, align: 'l' },
      { key: 'desc', header: 'DESCRIPTION', x: 90, w: 360, align: 'l' },
      { key: 'amt', header: 'AMOUNT', x: 570, w: 70, align: 'r' },
    ];
    const section = (title: string, txs: TruthTransaction[], total: string) => {
      if (!txs.length) return;
      w.ensure(60);
      const head = () => {
        w.text(title, 40, w.cy + 10, 10.5, true);
        w.cy += 18;
        drawHeader(w, cols, 7.5);
      };
      head();
      for (const t of txs)
        drawRow(w, cols, { date: d.mmdd(t.date), desc: t.description, amt: money(t.amount) }, S, 'desc', () => {
          w.text(`${title} (continued)`, 40, w.cy + 10, 10.5, true);
          w.cy += 18;
          drawHeader(w, cols, 7.5);
        });
      w.ensure(16);
      w.rule(40, 570, w.cy + 2);
      w.text(total, 40, w.cy + 12, S, true);
      w.right(dollars(sum(txs.map((t) => Math.abs(t.amount)))), 570, w.cy + 12, S, true);
      w.cy += 28;
    };
    section('DEPOSITS AND ADDITIONS', dep, 'Total Deposits and Additions');
    if (chk.length) {
      w.ensure(60);
      w.text('CHECKS PAID', 40, w.cy + 10, 10.5, true);
      w.cy += 18;
      const g = [40, 220, 400];
      const hdr = () => {
        for (const x of g) {
          w.text('CHECK NO.', x, w.cy + 9, 7.5, true);
          w.text('DATE PAID', x + 60, w.cy + 9, 7.5, true);
          w.right('AMOUNT', x + 165, w.cy + 9, 7.5, true);
        }
        w.cy += 16;
      };
      hdr();
      const per = Math.ceil(chk.length / 3);
      for (let i = 0; i < per; i++) {
        if (w.ensure(12)) {
          w.text('CHECKS PAID (continued)', 40, w.cy + 10, 10.5, true);
          w.cy += 18;
          hdr();
        }
        for (let k = 0; k < 3; k++) {
          const t = chk[k * per + i];
          if (!t) continue;
          w.text(String(t.checkNo), g[k], w.cy + S, S);
          w.text(d.mmdd(t.date), g[k] + 60, w.cy + S, S);
          w.right(dollars(-t.amount), g[k] + 165, w.cy + S, S);
        }
        w.cy += S * 1.4;
      }
      w.text('Total Checks Paid', 40, w.cy + 12, S, true);
      w.right(dollars(-sum(chk.map((t) => t.amount))), 570, w.cy + 12, S, true);
      w.cy += 28;
    }
    section('ATM & DEBIT CARD WITHDRAWALS', card, 'Total ATM & Debit Card Withdrawals');
    section('ELECTRONIC WITHDRAWALS', ele, 'Total Electronic Withdrawals');
    section('FEES', fee, 'Total Fees');
    // daily ending balance, three pairs across
    const db = dailyBalances(m);
    w.ensure(50);
    w.text('DAILY ENDING BALANCE', 40, w.cy + 10, 10.5, true);
    w.cy += 18;
    const gx = [40, 220, 400];
    const dh = () => {
      for (const x of gx) {
        w.text('DATE', x, w.cy + 9, 7.5, true);
        w.right('AMOUNT', x + 130, w.cy + 9, 7.5, true);
      }
      w.cy += 15;
    };
    dh();
    const per = Math.ceil(db.length / 3);
    for (let i = 0; i < per; i++) {
      if (w.ensure(12)) {
        w.text('DAILY ENDING BALANCE (continued)', 40, w.cy + 10, 10.5, true);
        w.cy += 18;
        dh();
      }
      for (let k = 0; k < 3; k++) {
        const e = db[k * per + i];
        if (!e) continue;
        w.text(d.mmdd(e[0]), gx[k], w.cy + S, S);
        w.right(dollars(e[1]), gx[k] + 130, w.cy + S, S);
      }
      w.cy += S * 1.4;
    }
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 570, cy: 770, size: 7.5, align: 'r' }));
    const rows = [...dep, ...chk, ...card, ...ele, ...fee].map(noBal);
    return { bytes: await w.save(), rows };
  },
};

// ------------------------------------------------------------------ 2. sectioned, signed negatives, 2-across checks, ledger balances
const sectionedSigned: Layout = {
  name: 'sectioned_signed',
  async render(m) {
    const w = await Writer.create('helvetica');
    const S = 8.5;
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(
        `${m.accountHolder.toUpperCase()} | Account # ${m.accountNumber.replace(/(\d{4})(?=\d)/g, '$1 ')} | ${d.long(m.periodStart)} to ${d.long(m.periodEnd)}`,
        40,
        40,
        7.5,
      );
      ww.cy = 62;
    };
    addressBlock(w, m, 40, 50, 9, true);
    w.text(m.bankName, 380, 50, 13, true);
    w.text(`Your ${m.accountType}`, 40, 110, 12, true);
    w.text(`for ${d.long(m.periodStart)} to ${d.long(m.periodEnd)}`, 40, 125, 9);
    w.text(`Account number: ${m.accountNumber.replace(/(\d{4})(?=\d)/g, '$1 ')}`, 330, 125, 9);
    w.cy = 150;
    w.text('Account summary', 40, w.cy, 10.5, true);
    w.cy += 15;
    const dep = byKind(m, 'deposit');
    const wd = byKind(m, 'card', 'electronic');
    const chk = byKind(m, 'check');
    const fee = byKind(m, 'fee');
    const summ: Array<[string, string]> = [
      [`Beginning balance on ${d.long(m.periodStart)}`, dollars(m.openingBalance)],
      ['Deposits and other credits', money(sum(dep.map((t) => t.amount)))],
      ['Withdrawals and other debits', neg(sum(wd.map((t) => t.amount)))],
      ['Checks', neg(sum(chk.map((t) => t.amount)))],
      ['Service fees', neg(sum(fee.map((t) => t.amount)))],
      [`Ending balance on ${d.long(m.periodEnd)}`, dollars(m.closingBalance)],
    ];
    for (const [a, b] of summ) {
      w.text(a, 40, w.cy, S, a.startsWith('Ending') || a.startsWith('Beginning'));
      w.right(b, 300, w.cy, S);
      w.cy += 12;
    }
    w.cy += 16;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 50, align: 'l' },
      { key: 'desc', header: 'Description', x: 100, w: 380, align: 'l' },
      { key: 'amt', header: 'Amount', x: 570, w: 70, align: 'r' },
    ];
    const section = (title: string, txs: TruthTransaction[], totalLabel: string) => {
      if (!txs.length) return;
      w.ensure(60);
      w.text(title, 40, w.cy + 10, 10.5, true);
      w.cy += 18;
      drawHeader(w, cols, 8, { shade: true });
      for (const t of txs)
        drawRow(w, cols, { date: d.mdyy(t.date), desc: t.description, amt: neg(t.amount) }, S, 'desc', () => {
          w.text(`${title} - continued`, 40, w.cy + 10, 10.5, true);
          w.cy += 18;
          drawHeader(w, cols, 8, { shade: true });
        });
      w.ensure(16);
      w.text(totalLabel, 40, w.cy + 12, S, true);
      w.right(`${txs[0].amount < 0 ? '-' : ''}$${money(sum(txs.map((t) => t.amount)))}`, 570, w.cy + 12, S, true);
      w.cy += 28;
    };
    section('Deposits and other credits', dep, 'Total deposits and other credits');
    section('Withdrawals and other debits', wd, 'Total withdrawals and other debits');
    if (chk.length) {
      w.ensure(60);
      w.text('Checks', 40, w.cy + 10, 10.5, true);
      w.cy += 18;
      const g = [40, 310];
      const hdr = () => {
        w.shade(36, w.cy, 576, w.cy + 14);
        for (const x of g) {
          w.text('Date', x, w.cy + 10, 8, true);
          w.text('Check #', x + 70, w.cy + 10, 8, true);
          w.right('Amount', x + 230, w.cy + 10, 8, true);
        }
        w.cy += 17;
      };
      hdr();
      for (let i = 0; i < chk.length; i += 2) {
        if (w.ensure(12)) {
          w.text('Checks - continued', 40, w.cy + 10, 10.5, true);
          w.cy += 18;
          hdr();
        }
        for (let k = 0; k < 2; k++) {
          const t = chk[i + k];
          if (!t) continue;
          w.text(d.mdyy(t.date), g[k], w.cy + S, S);
          w.text(String(t.checkNo), g[k] + 70, w.cy + S, S);
          w.right(neg(t.amount), g[k] + 230, w.cy + S, S);
        }
        w.cy += S * 1.4;
      }
      w.text('Total checks', 40, w.cy + 12, S, true);
      w.right(`-$${money(sum(chk.map((t) => t.amount)))}`, 570, w.cy + 12, S, true);
      w.cy += 28;
    }
    section('Service fees', fee, 'Total service fees');
    const db = dailyBalances(m);
    w.ensure(50);
    w.text('Daily ledger balances', 40, w.cy + 10, 10.5, true);
    w.cy += 18;
    const gx = [40, 220, 400];
    const dh = () => {
      w.shade(36, w.cy, 576, w.cy + 14);
      for (const x of gx) {
        w.text('Date', x, w.cy + 10, 8, true);
        w.right('Balance ($)', x + 130, w.cy + 10, 8, true);
      }
      w.cy += 17;
    };
    dh();
    for (let i = 0; i < db.length; i += 3) {
      if (w.ensure(12)) dh();
      for (let k = 0; k < 3; k++) {
        const e = db[i + k];
        if (!e) continue;
        w.text(d.mmdd(e[0]), gx[k], w.cy + S, S);
        w.right(money(e[1]), gx[k] + 130, w.cy + S, S);
      }
      w.cy += S * 1.4;
    }
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 570, cy: 40, size: 7.5, align: 'r' }));
    return { bytes: await w.save(), rows: [...dep, ...wd, ...chk, ...fee].map(noBal) };
  },
};

// ------------------------------------------------------------------ 3. debit/credit columns, balance only at end of day
const dayBalance: Layout = {
  name: 'credit_debit_daily_balance',
  crossYear: true,
  async render(m) {
    const w = await Writer.create('helvetica', [612, 792], 50, 70);
    const S = 8;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 36, w: 30, align: 'l' },
      { key: 'chk', header: 'Check Number', x: 72, w: 50, align: 'l' },
      { key: 'desc', header: 'Description', x: 135, w: 210, align: 'l' },
      { key: 'cr', header: 'Deposits/Credits', x: 420, w: 60, align: 'r' },
      { key: 'dr', header: 'Withdrawals/Debits', x: 500, w: 60, align: 'r' },
      { key: 'bal', header: 'Ending daily balance', x: 576, w: 60, align: 'r' },
    ];
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(`${m.accountType} | ${m.bankName}`, 36, 40, 8);
      ww.cy = 60;
      ww.text('Transaction history (continued)', 36, ww.cy + 10, 10, true);
      ww.cy += 16;
      drawHeader(ww, cols, 7.5);
    };
    w.text(m.accountType, 36, 50, 14, true);
    w.text(`Statement period: ${d.mdyyyy(m.periodStart)} - ${d.mdyyyy(m.periodEnd)}`, 36, 66, 9);
    w.text(m.bankName, 400, 50, 11, true);
    addressBlock(w, m, 36, 100, 9, true);
    w.text(`Account number: ${m.accountNumber}`, 360, 100, 8.5);
    w.text('Questions? Call 1-800-869-3557', 360, 112, 8.5);
    w.cy = 155;
    w.text('Activity summary', 36, w.cy, 10, true);
    w.cy += 14;
    const cr = sum(m.transactions.filter((t) => t.amount > 0).map((t) => t.amount));
    const dr = sum(m.transactions.filter((t) => t.amount < 0).map((t) => t.amount));
    for (const [a, b] of [
      [`Beginning balance on ${d.mmdd(m.periodStart).replace(/^0/, '')}`, dollars(m.openingBalance)],
      ['Deposits/Credits', money(cr)],
      ['Withdrawals/Debits', neg(dr)],
      [`Ending balance on ${d.mmdd(m.periodEnd).replace(/^0/, '')}`, dollars(m.closingBalance)],
    ]) {
      w.text(a, 36, w.cy, S, a.includes('balance'));
      w.right(b, 260, w.cy, S, a.includes('balance'));
      w.cy += 11;
    }
    w.cy += 14;
    w.text('Transaction history', 36, w.cy + 10, 10, true);
    w.cy += 16;
    drawHeader(w, cols, 7.5);
    const rows: TruthTransaction[] = [];
    m.transactions.forEach((t, i, a) => {
      const eod = lastOfDay(a, i);
      drawRow(
        w,
        cols,
        {
          date: d.mmdd(t.date).replace(/^0/, ''),
          chk: t.kind === 'check' ? String(t.checkNo) : '',
          desc: t.kind === 'check' ? '' : t.description,
          cr: t.amount > 0 ? money(t.amount) : '',
          dr: t.amount < 0 ? money(t.amount) : '',
          bal: eod ? money(t.balance!) : '',
        },
        S,
        'desc',
        () => undefined,
      );
      rows.push({ ...t, balance: eod ? t.balance : null });
    });
    w.rule(36, 576, w.cy + 2);
    w.text(`Ending balance on ${d.mmdd(m.periodEnd).replace(/^0/, '')}`, 135, w.cy + 12, S, true);
    w.right(money(m.closingBalance), 576, w.cy + 12, S, true);
    w.text('Totals', 36, w.cy + 24, S, true);
    w.right(`$${money(cr)}`, 420, w.cy + 24, S, true);
    w.right(`$${money(dr)}`, 500, w.cy + 24, S, true);
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 576, cy: 760, size: 7, align: 'r' }));
    return { bytes: await w.save(), rows };
  },
};

// ------------------------------------------------------------------ 4. single signed amount column, running balance, opening row
const signedSingle: Layout = {
  name: 'signed_single_column',
  charter: true,
  async render(m) {
    const w = await Writer.create('times');
    const S = 9;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 60, align: 'l' },
      { key: 'desc', header: 'Description', x: 110, w: 280, align: 'l' },
      { key: 'amt', header: 'Amount', x: 480, w: 70, align: 'r' },
      { key: 'bal', header: 'Balance', x: 572, w: 70, align: 'r' },
    ];
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(m.bankName, 40, 40, 10, true);
      ww.text(`Account Holder: ${m.accountHolder}`, 40, 52, 8);
      ww.cy = 70;
      drawHeader(ww, cols, 9, { shade: true });
    };
    w.text(m.bankName, 40, 50, 16, true);
    w.text(m.bankAddress, 40, 64, 8);
    w.text('Member FDIC', 40, 75, 8);
    w.text(`Account Holder: ${m.accountHolder}`, 40, 105, 10);
    w.text(`Account Type: ${m.accountType}`, 40, 118, 10);
    w.text(`Account Number: ${masked(m.accountNumber, '*')}`, 40, 131, 10);
    w.text(`Statement Period: ${d.mdyyyy(m.periodStart)} - ${d.mdyyyy(m.periodEnd)}`, 330, 105, 10);
    const cr = m.transactions.filter((t) => t.amount > 0);
    const dr = m.transactions.filter((t) => t.amount < 0);
    w.text(`Previous Balance: ${dollars(m.openingBalance)}`, 330, 118, 10);
    w.text(`New Balance: ${dollars(m.closingBalance)}`, 330, 131, 10);
    w.text(
      `${cr.length} Credits: ${dollars(sum(cr.map((t) => t.amount)))}   ${dr.length} Debits: ${dollars(-sum(dr.map((t) => t.amount)))}`,
      330,
      144,
      9,
    );
    w.cy = 170;
    w.text('Account Activity', 40, w.cy, 12, true);
    w.cy += 8;
    drawHeader(w, cols, 9, { shade: true });
    drawRow(
      w,
      cols,
      { date: d.mdyyyy(m.periodStart), desc: 'Beginning Balance', amt: '', bal: money(m.openingBalance) },
      S,
      'desc',
      () => undefined,
    );
    for (const t of m.transactions)
      drawRow(
        w,
        cols,
        { date: d.mdyyyy(t.date), desc: t.description, amt: neg(t.amount), bal: money(t.balance!) },
        S,
        'desc',
        () => undefined,
      );
    drawRow(
      w,
      cols,
      { date: d.mdyyyy(m.periodEnd), desc: 'Ending Balance', amt: '', bal: money(m.closingBalance) },
      S,
      'desc',
      () => undefined,
    );
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 306, cy: 770, size: 8 }));
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ 5. parentheses negatives, month-name dates, two-row summary
const parenMonth: Layout = {
  name: 'parentheses_month_names',
  async render(m) {
    const w = await Writer.create('helvetica');
    const S = 8.5;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 44, w: 40, align: 'l' },
      { key: 'desc', header: 'Transaction Description', x: 100, w: 300, align: 'l' },
      { key: 'amt', header: 'Amount', x: 480, w: 70, align: 'r' },
      { key: 'bal', header: 'Balance', x: 568, w: 70, align: 'r' },
    ];
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(m.bankName, 44, 40, 9, true);
      ww.text(`Acct No. ${masked(m.accountNumber, '*')}`, 400, 40, 8);
      ww.cy = 60;
      drawHeader(ww, cols, 8.5);
      ww.rule(44, 568, ww.cy - 2);
    };
    w.text(m.bankName, 44, 52, 15, true);
    w.text(`${m.accountType} Statement`, 44, 68, 10);
    w.text(`Statement Period: ${d.monD_yyyy(m.periodStart)} to ${d.monD_yyyy(m.periodEnd)}`, 330, 52, 9);
    w.text(`Acct No. ${masked(m.accountNumber, '*')}`, 330, 64, 9);
    addressBlock(w, m, 44, 100, 9.5);
    w.cy = 160;
    const cr = sum(m.transactions.filter((t) => t.amount > 0).map((t) => t.amount));
    const dr = sum(m.transactions.filter((t) => t.amount < 0).map((t) => t.amount));
    const xs = [44, 184, 324, 464];
    ['Opening Balance', 'Total Credits', 'Total Debits', 'Closing Balance'].forEach((l, i) => w.text(l, xs[i], w.cy, 8.5, true));
    w.cy += 13;
    [dollars(m.openingBalance), dollars(cr), `(${dollars(dr)})`, dollars(m.closingBalance)].forEach((v, i) => w.text(v, xs[i], w.cy, 9));
    w.cy += 30;
    drawHeader(w, cols, 8.5);
    w.rule(44, 568, w.cy - 2);
    for (const t of m.transactions) {
      drawRow(
        w,
        cols,
        {
          date: d.monDD(t.date),
          desc: t.description,
          amt: t.amount < 0 ? `(${money(t.amount)})` : money(t.amount),
          bal: money(t.balance!),
        },
        S,
        'desc',
        () => undefined,
      );
    }
    w.pageNumbers((i, n) => ({ text: `${i} of ${n}`, x: 568, cy: 770, size: 7.5, align: 'r' }));
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ 6. trailing minus, MM-DD, amount before description, partial balances
const trailingMinus: Layout = {
  name: 'trailing_minus_amount_first',
  async render(m, r) {
    const w = await Writer.create('courier');
    const S = 8;
    const cols: Col[] = [
      { key: 'date', header: 'POSTED', x: 36, w: 40, align: 'l' },
      { key: 'amt', header: 'AMOUNT', x: 160, w: 80, align: 'r' },
      { key: 'desc', header: 'TRANSACTION DESCRIPTION', x: 180, w: 290, align: 'l' },
      { key: 'bal', header: 'BALANCE', x: 576, w: 80, align: 'r' },
    ];
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(`${m.bankName.toUpperCase()}   ACCOUNT ${masked(m.accountNumber)}`, 36, 40, 8);
      ww.cy = 60;
      drawHeader(ww, cols, 8);
    };
    w.text(m.bankName.toUpperCase(), 36, 50, 14, true);
    w.text(`For the period ${d.mdyyyy(m.periodStart)} to ${d.mdyyyy(m.periodEnd)}`, 300, 50, 8);
    w.text(`Primary Account: ${m.accountNumber}`, 300, 62, 8);
    w.text(m.accountType.toUpperCase(), 300, 74, 8);
    addressBlock(w, m, 36, 95, 8.5, true);
    w.cy = 150;
    w.text(`STARTING BALANCE        ${money(m.openingBalance).padStart(14)}`, 36, w.cy, 8);
    w.text(`ENDING BALANCE          ${money(m.closingBalance).padStart(14)}`, 36, w.cy + 11, 8);
    w.cy += 35;
    drawHeader(w, cols, 8);
    const rows: TruthTransaction[] = [];
    for (const t of m.transactions) {
      const showBal = r.chance(0.5);
      drawRow(
        w,
        cols,
        {
          date: d.mmddDash(t.date),
          amt: t.amount < 0 ? `${money(t.amount)}-` : money(t.amount),
          desc: t.description.toUpperCase(),
          bal: showBal ? money(t.balance!) : '',
        },
        S,
        'desc',
        () => undefined,
      );
      rows.push({ ...t, description: t.description.toUpperCase(), balance: showBal ? t.balance : null });
    }
    w.pageNumbers((i, n) => ({ text: `PAGE ${i} OF ${n}`, x: 576, cy: 40, size: 8, align: 'r' }));
    return { bytes: await w.save(), rows };
  },
};

// ------------------------------------------------------------------ 7. CR/DR suffixes, landscape
const crdr: Layout = {
  name: 'cr_dr_landscape',
  async render(m) {
    const w = await Writer.create('helvetica', [792, 612], 40, 50);
    const S = 8.5;
    const cols: Col[] = [
      { key: 'date', header: 'Txn Date', x: 40, w: 50, align: 'l' },
      { key: 'desc', header: 'Transaction Details', x: 110, w: 420, align: 'l' },
      { key: 'amt', header: 'Amount', x: 640, w: 80, align: 'r' },
      { key: 'bal', header: 'Balance', x: 752, w: 80, align: 'r' },
    ];
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(`${m.bankName} - Account ending in ${last4(m.accountNumber)}`, 40, 32, 8);
      ww.cy = 48;
      drawHeader(ww, cols, 8.5, { shade: true });
    };
    w.text(m.bankName, 40, 45, 15, true);
    w.text(`Statement of Account  |  Account ending in ${last4(m.accountNumber)}`, 40, 60, 9);
    w.text(`Customer Name: ${m.accountHolder}`, 40, 80, 9);
    w.text(`Product: ${m.accountType}`, 40, 92, 9);
    w.text(`Statement Period ${d.mdyy(m.periodStart)} to ${d.mdyy(m.periodEnd)}`, 420, 80, 9);
    w.text(`Opening Balance  ${money(m.openingBalance)} CR`, 420, 92, 9);
    w.text(`Closing Balance  ${money(m.closingBalance)} CR`, 420, 104, 9);
    w.cy = 125;
    drawHeader(w, cols, 8.5, { shade: true });
    for (const t of m.transactions) {
      drawRow(
        w,
        cols,
        {
          date: d.mdyy(t.date),
          desc: t.description,
          amt: `${money(t.amount)} ${t.amount < 0 ? 'DR' : 'CR'}`,
          bal: `${money(t.balance!)} CR`,
        },
        S,
        'desc',
        () => undefined,
      );
    }
    w.pageNumbers((i, n) => ({ text: `Page ${i}/${n}`, x: 752, cy: 590, size: 7.5, align: 'r' }));
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ 8. post/effective dates, debit & credit columns, daily balance tuples, footers
const twoDates: Layout = {
  name: 'post_effective_dates',
  charter: true,
  crossYear: true,
  async render(m) {
    const w = await Writer.create('helvetica', [612, 792], 46, 56);
    const S = 7.5;
    const cols: Col[] = [
      { key: 'pd', header: 'Post Date', x: 36, w: 36, align: 'l' },
      { key: 'ed', header: 'Eff Date', x: 80, w: 36, align: 'l' },
      { key: 'desc', header: 'Description', x: 124, w: 250, align: 'l' },
      { key: 'dr', header: 'Debits', x: 440, w: 60, align: 'r' },
      { key: 'cr', header: 'Credits', x: 505, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 576, w: 60, align: 'r' },
    ];
    const footer = (ww: Writer) =>
      ww.text(`${m.bankName} is a Member FDIC. Questions about your account: www.example-bank.com`, 36, 760, 6.5);
    let inTable = true;
    w.onNewPage = (ww) => {
      footer(ww);
      if (ww.pages.length === 1) return;
      ww.text(`${m.accountHolder} - ${m.accountType} ${masked(m.accountNumber)}`, 36, 34, 7.5);
      ww.cy = 50;
      if (inTable) drawHeader(ww, cols, 7.5, { shade: true });
      else {
        ww.text('Daily Balance Summary (continued)', 36, ww.cy + 10, 10, true);
        ww.cy += 18;
      }
    };
    footer(w);
    w.text(m.bankName, 36, 50, 14, true);
    addressBlock(w, m, 36, 80, 9);
    w.text(`Statement Date: ${d.mdyyyy(m.periodEnd)}`, 380, 80, 8.5);
    w.text(`Statement Period ${d.mdyyyy(m.periodStart)} through ${d.mdyyyy(m.periodEnd)}`, 380, 92, 8.5);
    w.text(`Account: ${masked(m.accountNumber)}`, 380, 104, 8.5);
    w.cy = 140;
    w.text(`${m.accountType} Summary`, 36, w.cy, 10, true);
    w.cy += 14;
    const cr = m.transactions.filter((t) => t.amount > 0);
    const dr = m.transactions.filter((t) => t.amount < 0);
    for (const [a, b] of [
      ['Balance Forward', money(m.openingBalance)],
      [`${cr.length} Deposits and Other Credits`, money(sum(cr.map((t) => t.amount)))],
      [`${dr.length} Withdrawals and Other Debits`, money(sum(dr.map((t) => t.amount)))],
      ['Ending Balance', money(m.closingBalance)],
    ]) {
      w.text(a, 36, w.cy, 8);
      w.right(b, 300, w.cy, 8);
      w.cy += 11;
    }
    w.cy += 12;
    w.text('Transaction Detail', 36, w.cy + 10, 10, true);
    w.cy += 16;
    drawHeader(w, cols, 7.5, { shade: true });
    for (const t of m.transactions) {
      const eff = new Date(Date.parse(t.date) - (t.kind === 'card' ? 86400000 : 0)).toISOString().slice(0, 10);
      drawRow(
        w,
        cols,
        {
          pd: d.mmdd(t.date),
          ed: d.mmdd(eff),
          desc: t.description,
          dr: t.amount < 0 ? money(t.amount) : '',
          cr: t.amount > 0 ? money(t.amount) : '',
          bal: money(t.balance!),
        },
        S,
        'desc',
        () => undefined,
      );
    }
    w.cy += 14;
    const db = dailyBalances(m);
    inTable = false;
    w.ensure(40);
    w.text('Daily Balance Summary', 36, w.cy + 10, 10, true);
    w.cy += 18;
    for (let i = 0; i < db.length; i += 4) {
      w.ensure(11);
      for (let k = 0; k < 4; k++) {
        const e = db[i + k];
        if (!e) continue;
        w.text(d.mmdd(e[0]), 36 + k * 140, w.cy + S, S);
        w.right(money(e[1]), 36 + k * 140 + 110, w.cy + S, S);
      }
      w.cy += 11;
    }
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 576, cy: 34, size: 7.5, align: 'r' }));
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ 9. randomised: column order, header synonyms, notations, date formats
const randomised: Layout = {
  name: 'randomised_generic',
  crossYear: true,
  async render(m, r) {
    const family = r.pick(['helvetica', 'times', 'courier'] as const);
    const w = await Writer.create(family, r.chance(0.8) ? [612, 792] : [612, 1008], 48, 60);
    const S = r.pick([7.5, 8, 8.5, 9]);
    const dateFmt = r.pick([d.mmdd, d.mdyyyy, d.mdyy, d.monDD, d.mmddDash, d.iso]);
    const split = r.chance(0.5);
    const notation = r.pick(['minus', 'paren', 'trailing', 'crdr'] as const);
    const balMode = r.pick(['all', 'some', 'none'] as const);
    const fmtSigned = (n: number) => {
      if (n >= 0) return notation === 'crdr' ? `${money(n)} CR` : money(n);
      return notation === 'minus'
        ? `-${money(n)}`
        : notation === 'paren'
          ? `(${money(n)})`
          : notation === 'trailing'
            ? `${money(n)}-`
            : `${money(n)} DR`;
    };
    const H = {
      date: r.pick(['Date', 'Posting Date', 'Trans Date', 'Posted', 'Date Posted']),
      desc: r.pick(['Description', 'Transaction Description', 'Details', 'Transaction Details', 'Memo']),
      debit: r.pick(['Withdrawals', 'Debits', 'Payments', 'Withdrawals/Debits', 'Money Out', 'Charges']),
      credit: r.pick(['Deposits', 'Credits', 'Deposits/Credits', 'Additions', 'Money In']),
      amount: r.pick(['Amount', 'Transaction Amount', 'Amount ($)']),
      balance: r.pick(['Balance', 'Running Balance', 'Ledger Balance', 'Daily Balance']),
    };
    const money1 = split ? (r.chance(0.5) ? ['debit', 'credit'] : ['credit', 'debit']) : ['amount'];
    const order = r.chance(0.75) ? ['desc', ...money1] : [...money1, 'desc'];
    if (balMode !== 'none') order.push('bal');
    // x positions
    const cols: Col[] = [{ key: 'date', header: H.date, x: 40, w: 60, align: 'l' }];
    let x = dateFmt === d.mdyyyy || dateFmt === d.iso ? 112 : 92;
    for (const k of order) {
      if (k === 'desc') {
        const wDesc = r.pick([200, 240, 280]);
        cols.push({ key: 'desc', header: H.desc, x, w: wDesc, align: 'l' });
        x += wDesc + 16;
      } else {
        const right = x + 70;
        const header = k === 'bal' ? H.balance : (H as any)[k];
        cols.push({ key: k, header, x: Math.max(right, x + w.tw(header, S, true)), w: 70, align: 'r' });
        x = Math.max(right, x + w.tw(header, S, true)) + 14;
      }
    }
    const scale = Math.min(1, (w.width - 40 - 40) / (x - 40));
    for (const c of cols) c.x = 40 + (c.x - 40) * scale;
    for (const c of cols) if (c.key === 'desc') c.w *= scale;
    const tableHead = () => drawHeader(w, cols, S, { shade: r.chance(0.5) });
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(`${m.bankName} - ${m.accountHolder}`, 40, 36, 7.5);
      ww.cy = 54;
      tableHead();
    };
    w.text(m.bankName, 40, 50, r.pick([13, 15, 17]), true);
    const openL = r.pick(['Beginning Balance', 'Opening Balance', 'Previous Balance', 'Starting Balance', 'Balance Forward']);
    const closeL = r.pick(['Ending Balance', 'Closing Balance', 'New Balance']);
    const per = r.pick([
      () => `Statement Period: ${d.mdyyyy(m.periodStart)} - ${d.mdyyyy(m.periodEnd)}`,
      () => `${d.long(m.periodStart)} through ${d.long(m.periodEnd)}`,
      () => `For the period ${d.mdyy(m.periodStart)} to ${d.mdyy(m.periodEnd)}`,
      () => `Statement period ${d.monD_yyyy(m.periodStart)} - ${d.monD_yyyy(m.periodEnd)}`,
    ])();
    const acct = r.pick([
      () => `Account Number: ${masked(m.accountNumber)}`,
      () => `Account # ${masked(m.accountNumber, '*')}`,
      () => `Acct: ${m.accountNumber}`,
      () => `Account ending in ${last4(m.accountNumber)}`,
      () => `Account No. ****${last4(m.accountNumber)}`,
      () => `Primary Account: ...${last4(m.accountNumber)}`,
      () => `Acct # XXXX-XXXX-${last4(m.accountNumber)}`,
    ])();
    const labelled = r.chance(0.5);
    w.text(per, 330, 50, 8.5);
    w.text(acct, 330, 62, 8.5);
    w.text(`${m.accountType}`, 330, 74, 8.5);
    if (labelled) w.text(`Account Name: ${m.accountHolder}`, 40, 90, 9);
    else {
      addressBlock(w, m, 40, 90, 9);
      // half of them print a contact block beside the address (chosen from the account number: no extra draw)
      if (Number(m.accountNumber.slice(-1)) % 2 === 0) serviceBlock(w, m, 330, 90);
    }
    w.cy = 140;
    w.text(`${openL}`, 40, w.cy, 8.5);
    w.right(dollars(m.openingBalance), 260, w.cy, 8.5);
    w.text(`${closeL}`, 40, w.cy + 12, 8.5);
    w.right(dollars(m.closingBalance), 260, w.cy + 12, 8.5);
    w.cy += 40;
    tableHead();
    const rows: TruthTransaction[] = [];
    for (const t of m.transactions) {
      const showBal = balMode === 'all' || (balMode === 'some' && r.chance(0.5));
      const cells: Record<string, string> = { date: dateFmt(t.date), desc: t.description, bal: showBal ? money(t.balance!) : '' };
      if (split) {
        cells.debit = t.amount < 0 ? money(t.amount) : '';
        cells.credit = t.amount > 0 ? money(t.amount) : '';
      } else cells.amount = fmtSigned(t.amount);
      drawRow(w, cols, cells, S, 'desc', () => undefined);
      rows.push({ ...t, balance: showBal ? t.balance : null });
    }
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 572, cy: w.size[1] - 30, size: 7, align: 'r' }));
    return { bytes: await w.save(), rows };
  },
};

// the real-world traits of issue 11 (UK/AU/NZ/IN layouts, second listings, ignore blocks)
export const LAYOUTS: Layout[] = [
  sectioned,
  sectionedSigned,
  dayBalance,
  signedSingle,
  parenMonth,
  trailingMinus,
  crdr,
  twoDates,
  randomised,
  ...WORLD_LAYOUTS,
];
