/**
 * The accounts, staleness and transfer rules on the real-layout dev set (../shared/statements-devset):
 * every statement's ground-truth rows (CSV) and balances (meta), with bank and account number left
 * blank (as when a parser prints neither), analysed as one deal. The files are unrelated accounts,
 * so any statements grouped together (other than a file and its scanned twin), any balance mismatch
 * between two files and any own-account transfer are false. Prints the figures; exits 2 when the
 * dev set is absent.
 *   tsc -b tools && node tools/dist/bench/deals-devset.js [DIR]
 */
import * as fs from 'fs';
import * as path from 'path';
import { analyzeDeal, dayNumber, dayToDate, type StatementInput } from '@ledgerlens/underwriting';

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endCell();
    else if (c === '\n') {
      endCell();
      rows.push(row);
      row = [];
    } else if (c !== '\r') cell += c;
  }
  if (cell || row.length) {
    endCell();
    rows.push(row);
  }
  return rows;
}

export function devsetStatements(dir: string): StatementInput[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.meta.json'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.meta.json'.length);
      const meta = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Record<string, unknown>;
      const [, ...rows] = csvRows(fs.readFileSync(path.join(dir, `${name}.csv`), 'utf8')).filter((r) => r.length >= 3);
      return {
        id: name,
        bankName: null,
        accountNumberLast4: null,
        periodStart: (meta.period_start as string) ?? null,
        periodEnd: (meta.period_end as string) ?? null,
        openingBalance: (meta.opening_balance as number) ?? null,
        closingBalance: (meta.closing_balance as number) ?? null,
        transactions: rows.map(([date, description, amount, balance]) => ({
          date,
          description,
          amount: Number(amount),
          balance: balance === '' || balance === undefined ? null : Number(balance),
        })),
      };
    });
}

/**
 * Every statement moved (rows and period, day offsets kept) to start on `start`: unrelated real
 * accounts side by side in one period, where every own-account transfer the rule finds is false.
 */
export function alignedStatements(statements: StatementInput[], start = '2025-01-01'): StatementInput[] {
  return statements.map((s) => {
    const first = s.periodStart ?? s.transactions.reduce((a, t) => (t.date < a ? t.date : a), '9999-12-31');
    const shift = dayNumber(start) - dayNumber(first);
    const move = (d: string | null) => (d ? dayToDate(dayNumber(d) + shift) : d);
    return {
      ...s,
      periodStart: move(s.periodStart),
      periodEnd: move(s.periodEnd),
      transactions: s.transactions.map((t) => ({ ...t, date: move(t.date)! })),
    };
  });
}

function main(): void {
  const dir = process.argv[2] ?? path.join(__dirname, '../../../../shared/statements-devset');
  if (!fs.existsSync(dir)) {
    console.error(`statements-devset not found at ${dir}`);
    process.exit(2);
  }
  const statements = devsetStatements(dir);
  const wide = analyzeDeal({ statements, fundingAmountRequested: 10000, params: { lookbackMonths: 1200 } });
  const grouped = wide.accounts.filter((a) => a.statement_count > 1).map((a) => a.statement_ids.join(' + '));
  const mismatches = (a: typeof wide) => a.cross_doc.findings.filter((f) => f.type === 'balance_mismatch').length;
  // the rule before accounts: blank bank and account number made every statement one account
  const before = analyzeDeal({
    statements: statements.map((s) => ({ ...s, accountNumberLast4: '0000' })),
    fundingAmountRequested: 10000,
    params: { lookbackMonths: 1200 },
  });
  const deal = analyzeDeal({ statements, fundingAmountRequested: 10000 });
  const aligned = analyzeDeal({
    statements: alignedStatements(statements),
    fundingAmountRequested: 10000,
    params: { lookbackMonths: 1200 },
  });
  const rows = statements.reduce((n, s) => n + s.transactions.length, 0);
  console.log(
    JSON.stringify(
      {
        statements: statements.length,
        accounts: wide.accounts.length,
        grouped_together: grouped,
        balance_mismatches_between_files: mismatches(wide),
        balance_mismatches_as_one_account: mismatches(before),
        own_transfers_matched: wide.own_transfers.count,
        own_transfers: wide.own_transfers.transfers.map(
          (t) => `${t.amount} ${t.debit.statement_id} ${t.debit.date} -> ${t.credit.statement_id} ${t.credit.date}`,
        ),
        aligned_in_one_period: {
          rows,
          false_transfers: aligned.own_transfers.count,
          transfers: aligned.own_transfers.transfers.map(
            (t) =>
              `${t.amount} ${t.debit.statement_id} "${t.debit.description}" -> ${t.credit.statement_id} "${t.credit.description}" (${t.days_apart} d)`,
          ),
        },
        default_window: {
          newest_period_end: deal.staleness.newest_period_end,
          stale: deal.staleness.stale_statements.length,
          kept: deal.coverage.statement_count,
        },
      },
      null,
      2,
    ),
  );
}

if (require.main === module) main();
