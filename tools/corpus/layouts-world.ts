/**
 * Layouts with the traits of real statements outside the US business corpus (issue 11): description
 * last with cells emitted in any order, UK Money in/out with dates once per day and brought-forward
 * rows, day-first dates, a second listing of the same transactions by type, CR/DR balances printed at
 * the end of the day with an "ignore" block, a table continued over pages with carried/brought-forward
 * balances and yearless Dec->Jan dates, money printed as plain numbers ("1935", "120 00", "1935.3").
 * These only RENDER a StatementModel.
 */
import { Col, drawHeader, drawRow, Writer } from './pdfdoc';
import { d, fmtMoney, StatementModel, TruthTransaction } from './model';
import type { Layout } from './layouts';

const money = fmtMoney;
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ordinal = (n: number) =>
  `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;
const dmy = {
  ordMon: (s: string) => `${ordinal(+s.slice(8, 10))} ${MON[+s.slice(5, 7) - 1]}`,
  ddMon: (s: string) => `${s.slice(8, 10)} ${MON[+s.slice(5, 7) - 1]}`,
  dMonYYYY: (s: string) => `${+s.slice(8, 10)} ${MON[+s.slice(5, 7) - 1]} ${s.slice(0, 4)}`,
  ddmmyy: (s: string) => `${s.slice(8, 10)}/${s.slice(5, 7)}/${s.slice(2, 4)}`,
  ddmmyyyy: (s: string) => `${s.slice(8, 10)}/${s.slice(5, 7)}/${s.slice(0, 4)}`,
  ddmmyyyyDash: (s: string) => `${s.slice(8, 10)}-${s.slice(5, 7)}-${s.slice(0, 4)}`,
};
const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) * 100) / 100;
const lastOfDay = (txs: TruthTransaction[], i: number) => i === txs.length - 1 || txs[i + 1].date !== txs[i].date;
const firstOfDay = (txs: TruthTransaction[], i: number) => i === 0 || txs[i - 1].date !== txs[i].date;

/** The amount of a transaction in its money-in or money-out column. */
function moneyCells(t: TruthTransaction, inKey: string, outKey: string, fmt: (n: number) => string = money): Record<string, string> {
  return t.amount > 0 ? { [inKey]: fmt(t.amount) } : { [outKey]: fmt(t.amount) };
}

/** Continuation pages start with the table header again. */
function headerOnNewPages(w: Writer, cols: Col[], size: number): void {
  w.onNewPage = (ww) => {
    if (ww.pages.length === 1) return;
    ww.cy = 50;
    drawHeader(ww, cols, size);
  };
}

/** Header block shared by the layouts: bank, labelled holder, account, product, period, balances. */
function headerBlock(
  w: Writer,
  m: StatementModel,
  period: string,
  acct: string,
  bal: (n: number) => string,
  openL = 'Opening balance',
  closeL = 'Closing balance',
): void {
  w.text(m.bankName, 40, 50, 15, true);
  w.text(`Account name: ${m.accountHolder}`, 40, 80, 9);
  w.text(acct, 40, 92, 9);
  w.text(m.accountType, 40, 104, 9);
  w.text(period, 320, 80, 9);
  w.text(openL, 320, 92, 9);
  w.right(bal(m.openingBalance), 560, 92, 9);
  w.text(closeL, 320, 104, 9);
  w.right(bal(m.closingBalance), 560, 104, 9);
  w.cy = 135;
}

// ------------------------------------------------------------------ US: Date | Credits | Debits | Balance | Description
const descriptionLast: Layout = {
  name: 'description_last_cells_any_order',
  crossYear: true,
  async render(m, r) {
    const w = await Writer.create('helvetica');
    const S = 8;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 40, align: 'l' },
      { key: 'cr', header: 'Credits', x: 150, w: 60, align: 'r' },
      { key: 'dr', header: 'Debits', x: 220, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 300, w: 70, align: 'r' },
      { key: 'desc', header: 'Description', x: 320, w: 250, align: 'l' },
    ];
    headerOnNewPages(w, cols, S);
    headerBlock(
      w,
      m,
      `${d.long(m.periodStart)} through ${d.long(m.periodEnd)}`,
      `Account Number: XXXXXX${m.accountNumber.slice(-4)}`,
      (n) => `$${money(n)}`,
      'Beginning Balance',
      'Ending Balance',
    );
    drawHeader(w, cols, S);
    const dayFirst = r.chance(0.3);
    for (const t of m.transactions) {
      const cells: Record<string, string> = {
        date: dayFirst ? dmy.ddmmyy(t.date) : d.mmdd(t.date),
        desc: t.description,
        bal: money(t.balance!),
      };
      Object.assign(cells, moneyCells(t, 'cr', 'dr'));
      // each cell is its own text object, emitted in a random order
      const order = [...cols].sort(() => r.next() - 0.5);
      drawRow(w, order, cells, S, 'desc', () => undefined);
    }
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ UK: Money out | Money in | Balance, date once per day
const ukMoneyInOut: Layout = {
  name: 'uk_money_in_out_brought_forward',
  crossYear: true,
  async render(m, r) {
    const w = await Writer.create(r.pick(['helvetica', 'times'] as const));
    const S = 8.5;
    const style = r.pick(['ordinal', 'ddmmyy', 'ddMon'] as const);
    const fmt = style === 'ordinal' ? dmy.ordMon : style === 'ddmmyy' ? dmy.ddmmyy : dmy.ddMon;
    const s = m.periodStart;
    const e = m.periodEnd;
    const period =
      style === 'ddmmyy'
        ? `Statement period ${dmy.ddmmyyyy(s)} - ${dmy.ddmmyyyy(e)}`
        : s.slice(0, 4) === e.slice(0, 4)
          ? `Your statement ${dmy.ordMon(s)} to ${dmy.ordMon(e)} ${e.slice(0, 4)}`
          : `Your statement ${dmy.ordMon(s)} ${s.slice(0, 4)} to ${dmy.ordMon(e)} ${e.slice(0, 4)}`;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 50, align: 'l' },
      { key: 'desc', header: 'Description', x: 100, w: 250, align: 'l' },
      { key: 'out', header: 'Money out', x: 420, w: 60, align: 'r' },
      { key: 'in', header: 'Money in', x: 490, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 570, w: 70, align: 'r' },
    ];
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.text(`${m.bankName} - Sort code 20-${r.int(10, 99)}-${r.int(10, 99)}`, 40, 36, 7);
      ww.cy = 50;
      drawHeader(ww, cols, S);
    };
    headerBlock(w, m, period, `Sort code 40-11-62 Account number ${m.accountNumber.slice(-8)}`, (n) => `£${money(n)}`);
    drawHeader(w, cols, S);
    drawRow(w, cols, { date: fmt(s), desc: 'Balance brought forward', bal: money(m.openingBalance) }, S, 'desc', () => undefined);
    let printed = s;
    m.transactions.forEach((t, i) => {
      // the date is printed on the first row of each day only (also after the brought-forward row)
      const showDate = firstOfDay(m.transactions, i) && !(i === 0 && t.date === printed);
      if (showDate) printed = t.date;
      const cells: Record<string, string> = { date: showDate ? fmt(t.date) : '', desc: t.description, bal: money(t.balance!) };
      Object.assign(cells, moneyCells(t, 'in', 'out'));
      drawRow(w, cols, cells, S, 'desc', () => undefined);
    });
    drawRow(w, cols, { date: fmt(e), desc: 'Balance carried forward', bal: money(m.closingBalance) }, S, 'desc', () => undefined);
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ a listing by date, then the same transactions by type, then a daily balance grid
const listingTwice: Layout = {
  name: 'second_listing_by_type',
  async render(m) {
    const w = await Writer.create('helvetica');
    const S = 8;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 40, align: 'l' },
      { key: 'desc', header: 'Description', x: 90, w: 300, align: 'l' },
      { key: 'amt', header: 'Amount', x: 480, w: 70, align: 'r' },
      { key: 'bal', header: 'Balance', x: 570, w: 70, align: 'r' },
    ];
    const typeCols = cols.slice(0, 3);
    let head: () => void = () => drawHeader(w, cols, S);
    w.onNewPage = (ww) => {
      if (ww.pages.length === 1) return;
      ww.cy = 50;
      head();
    };
    headerBlock(
      w,
      m,
      `Statement Period: ${d.mdyyyy(m.periodStart)} - ${d.mdyyyy(m.periodEnd)}`,
      `Account Number: ${m.accountNumber}`,
      (n) => `$${money(n)}`,
      'Beginning Balance',
      'Ending Balance',
    );
    w.text('TRANSACTION HISTORY', 40, w.cy + 10, 10, true);
    w.cy += 18;
    head();
    for (const t of m.transactions)
      drawRow(
        w,
        cols,
        { date: d.mmdd(t.date), desc: t.description, amt: t.amount < 0 ? `-${money(t.amount)}` : money(t.amount), bal: money(t.balance!) },
        S,
        'desc',
        () => undefined,
      );
    // the same transactions again, grouped by type, unsigned (the section gives the sign)
    const groups: Array<[string, TruthTransaction[]]> = [
      ['DEPOSITS AND ADDITIONS', m.transactions.filter((t) => t.amount > 0)],
      ['WITHDRAWALS AND DEBITS', m.transactions.filter((t) => t.amount < 0)],
    ];
    head = () => drawHeader(w, typeCols, S);
    w.newPage();
    w.text('TRANSACTIONS BY TYPE', 40, w.cy + 10, 10, true);
    w.cy += 18;
    for (const [title, txs] of groups) {
      if (!txs.length) continue;
      w.ensure(40);
      w.text(title, 40, w.cy + 10, 9.5, true);
      w.cy += 16;
      drawHeader(w, typeCols, S);
      for (const t of txs)
        drawRow(w, typeCols, { date: d.mmdd(t.date), desc: t.description, amt: money(t.amount) }, S, 'desc', () => undefined);
      w.text(`Total ${title.toLowerCase()}`, 40, w.cy + 10, S, true);
      w.right(money(sum(txs.map((t) => Math.abs(t.amount)))), 480, w.cy + 10, S, true);
      w.cy += 20;
    }
    head = () => undefined;
    w.ensure(40);
    w.text('DAILY BALANCES', 40, w.cy + 10, 9.5, true);
    w.cy += 18;
    const days = m.transactions.filter((_, i, a) => lastOfDay(a, i));
    for (let i = 0; i < days.length; i += 3) {
      w.ensure(11);
      for (let k = 0; k < 3; k++) {
        const t = days[i + k];
        if (!t) continue;
        w.text(d.mmdd(t.date), 40 + k * 180, w.cy + S, S);
        w.right(money(t.balance!), 40 + k * 180 + 130, w.cy + S, S);
      }
      w.cy += 11;
    }
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ AU style: date once per day, balance at the end of the day with CR/DR, an "ignore" block
const dayGroupedCrDr: Layout = {
  name: 'day_grouped_crdr_ignore_block',
  crossYear: true,
  async render(m, r) {
    const w = await Writer.create('helvetica');
    const S = 8.5;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 45, align: 'l' },
      { key: 'desc', header: 'Transaction', x: 95, w: 260, align: 'l' },
      { key: 'dr', header: 'Debit', x: 420, w: 60, align: 'r' },
      { key: 'cr', header: 'Credit', x: 490, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 575, w: 75, align: 'r' },
    ];
    const crdr = (n: number) => `${money(n)} ${n < 0 ? 'DR' : 'CR'}`;
    headerOnNewPages(w, cols, S);
    headerBlock(
      w,
      m,
      `Statement Period ${dmy.dMonYYYY(m.periodStart)} - ${dmy.dMonYYYY(m.periodEnd)}`,
      `Account Number 06 2000 ${m.accountNumber.slice(-8)}`,
      (n) => `$${crdr(n)}`,
    );
    drawHeader(w, cols, S);
    const rows: TruthTransaction[] = [];
    m.transactions.forEach((t, i, a) => {
      const end = lastOfDay(a, i);
      const cells: Record<string, string> = {
        date: firstOfDay(a, i) ? dmy.ddMon(t.date) : '',
        desc: t.description,
        bal: end ? crdr(t.balance!) : '',
      };
      Object.assign(cells, moneyCells(t, 'cr', 'dr'));
      drawRow(w, cols, cells, S, 'desc', () => undefined);
      rows.push({ ...t, balance: end ? t.balance : null });
    });
    w.cy += 20;
    w.ensure(80);
    w.text('Transactions listed for information only - not included in the statement', 40, w.cy + 10, 9, true);
    w.cy += 18;
    drawHeader(w, cols, S);
    for (const t of m.transactions.slice(0, r.int(2, 4))) {
      const cells: Record<string, string> = { date: dmy.ddMon(t.date), desc: t.description };
      Object.assign(cells, moneyCells(t, 'cr', 'dr'));
      drawRow(w, cols, cells, S, 'desc', () => undefined);
    }
    return { bytes: await w.save(), rows };
  },
};

// ------------------------------------------------------------------ IN style: DD-MM-YYYY, Debit | Credit | Balance, amounts without separators, no header block
const bareDayFirst: Layout = {
  name: 'bare_table_ddmmyyyy',
  async render(m) {
    const w = await Writer.create('helvetica');
    const S = 8;
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 60, align: 'l' },
      { key: 'desc', header: 'Description', x: 110, w: 230, align: 'l' },
      { key: 'dr', header: 'Debit Amt', x: 420, w: 60, align: 'r' },
      { key: 'cr', header: 'Credit Amt', x: 490, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 570, w: 70, align: 'r' },
    ];
    // "1935.3": no thousands separators and the trailing zero dropped, as some generators print
    const plain = (n: number) => Math.abs(n).toFixed(2).replace(/0$/, '');
    return plainTable(w, m, cols, S, dmy.ddmmyyyy, plain, plain);
  },
};

/** The IN-style page: a short header block, then a DD-MM-YYYY table with Debit | Credit | Balance in `fmt`. */
async function plainTable(
  w: Writer,
  m: StatementModel,
  cols: Col[],
  S: number,
  periodDate: (s: string) => string,
  headBal: (n: number) => string,
  fmt: (n: number) => string,
): Promise<{ bytes: Uint8Array; rows: TruthTransaction[] }> {
  headerOnNewPages(w, cols, S);
  w.text(m.bankName, 40, 50, 15, true);
  w.text(`Account name: ${m.accountHolder}`, 40, 80, 9);
  w.text(`Account No: ${m.accountNumber}`, 40, 92, 9);
  w.text(m.accountType, 40, 104, 9);
  w.text(`Statement from ${periodDate(m.periodStart)} to ${periodDate(m.periodEnd)}`, 320, 80, 9);
  w.text(`Opening balance ${headBal(m.openingBalance)}`, 320, 92, 9);
  w.text(`Closing balance ${headBal(m.closingBalance)}`, 320, 104, 9);
  w.cy = 135;
  drawHeader(w, cols, S);
  for (const t of m.transactions) {
    const cells: Record<string, string> = { date: dmy.ddmmyyyyDash(t.date), desc: t.description, bal: fmt(t.balance!) };
    Object.assign(cells, moneyCells(t, 'cr', 'dr', fmt));
    drawRow(w, cols, cells, S, 'desc', () => undefined);
  }
  return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
}

// ------------------------------------------------------------------ a table continued over pages: carried/brought forward rows, "(continued)"
const continuedPages: Layout = {
  name: 'continued_pages_carried_forward',
  crossYear: 'always',
  async render(m, r) {
    // a tall footer (notices) leaves a short table area: even small statements run onto a second page
    const w = await Writer.create(r.pick(['helvetica', 'times'] as const), [612, 792], 50, 330);
    const S = 9;
    const lead = 1.45;
    const style = r.pick(['mmdd', 'ddMon', 'monDD'] as const);
    const fmt = style === 'mmdd' ? d.mmdd : style === 'ddMon' ? dmy.ddMon : d.monDD;
    const datedForward = r.chance(0.5);
    const cols: Col[] = [
      { key: 'date', header: 'Date', x: 40, w: 45, align: 'l' },
      { key: 'desc', header: 'Description', x: 95, w: 150, align: 'l' },
      { key: 'out', header: 'Withdrawals', x: 380, w: 60, align: 'r' },
      { key: 'in', header: 'Deposits', x: 460, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 560, w: 70, align: 'r' },
    ];
    const footer = (ww: Writer) => {
      ww.text('Please examine this statement at once. Report any error within 30 days.', 40, 792 - 300, 7);
      ww.text(`${m.bankName} is a member of the deposit insurance scheme.`, 40, 792 - 290, 7);
    };
    w.onNewPage = (ww) => {
      footer(ww);
      if (ww.pages.length === 1) return;
      ww.text(`${m.accountHolder} - account ending ${m.accountNumber.slice(-4)}`, 40, 40, 7);
      ww.text('Account activity (continued)', 40, 62, 10, true);
      ww.cy = 70;
      drawHeader(ww, cols, S);
    };
    footer(w);
    headerBlock(
      w,
      m,
      `Statement period: ${d.long(m.periodStart)} to ${d.long(m.periodEnd)}`,
      `Account number ${m.accountNumber}`,
      (n) => `$${money(n)}`,
    );
    w.text('Account activity', 40, w.cy + 2, 10, true);
    w.cy += 8;
    drawHeader(w, cols, S);
    const lh = S * lead;
    const limit = 792 - 330 - lh - 2; // room kept for the carried-forward row
    let prevDate = '';
    m.transactions.forEach((t) => {
      const lines = w.wrap(t.description, 150, S).length;
      if (w.cy + lh * lines + 2 > limit) {
        const bal = money(m.transactions[m.transactions.indexOf(t) - 1]?.balance ?? m.openingBalance);
        drawRow(
          w,
          cols,
          { date: datedForward ? fmt(prevDate) : '', desc: 'Balance carried forward', bal },
          S,
          'desc',
          () => undefined,
          lead,
        );
        if (r.chance(0.5)) w.text('Continued on next page', 40, w.cy + 10, 7);
        w.newPage();
        drawRow(
          w,
          cols,
          { date: datedForward ? fmt(prevDate) : '', desc: 'Balance brought forward', bal },
          S,
          'desc',
          () => undefined,
          lead,
        );
      }
      // the date only on the first row of each day: the first row of a page may print none
      const cells: Record<string, string> = { date: t.date === prevDate ? '' : fmt(t.date), desc: t.description, bal: money(t.balance!) };
      Object.assign(cells, moneyCells(t, 'in', 'out'));
      drawRow(w, cols, cells, S, 'desc', () => undefined, lead);
      prevDate = t.date;
    });
    drawRow(w, cols, { date: fmt(m.periodEnd), desc: 'Closing balance', bal: money(m.closingBalance) }, S, 'desc', () => undefined, lead);
    w.pageNumbers((i, n) => ({ text: `Page ${i} of ${n}`, x: 570, cy: 770, size: 7.5, align: 'r' }));
    return { bytes: await w.save(), rows: m.transactions.map((t) => ({ ...t })) };
  },
};

// ------------------------------------------------------------------ plain-number money: "1935", "120 00", "1935.3", "87,405"
const plainNumbers: Layout = {
  name: 'plain_number_amounts',
  async render(m, r) {
    // whole amounts in some rows (the model's cents are dropped there and the balances follow), so
    // that "1935" and "87,405" are printed; the model is changed before the ground truth is read
    let bal = m.openingBalance;
    for (const t of m.transactions) {
      if (r.chance(0.35)) t.amount = t.amount < 0 ? Math.min(-1, Math.round(t.amount)) : Math.max(1, Math.round(t.amount));
      bal = Math.round((bal + t.amount) * 100) / 100;
      t.balance = bal;
    }
    m.closingBalance = bal;
    const w = await Writer.create('helvetica');
    const S = 8;
    const cols: Col[] = [
      { key: 'date', header: 'Txn Date', x: 40, w: 60, align: 'l' },
      { key: 'desc', header: 'Narration', x: 110, w: 230, align: 'l' },
      { key: 'dr', header: 'Withdrawal', x: 420, w: 60, align: 'r' },
      { key: 'cr', header: 'Deposit', x: 490, w: 60, align: 'r' },
      { key: 'bal', header: 'Balance', x: 570, w: 70, align: 'r' },
    ];
    const grouped = r.chance(0.5);
    // whole numbers bare (or grouped), cents with the trailing zero dropped, or a space for the point
    const plain = (n: number) => {
      const a = Math.abs(n);
      if (Number.isInteger(a)) return grouped ? a.toLocaleString('en-US') : String(a);
      if (r.chance(0.15)) return a.toFixed(2).replace('.', ' ');
      return a.toFixed(2).replace(/0$/, '');
    };
    return plainTable(w, m, cols, S, dmy.dMonYYYY, money, plain);
  },
};

export const WORLD_LAYOUTS: Layout[] = [
  descriptionLast,
  ukMoneyInOut,
  listingTwice,
  dayGroupedCrDr,
  bareDayFirst,
  continuedPages,
  plainNumbers,
];
