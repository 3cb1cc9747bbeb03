/**
 * statements analyze FILE... --funding N [--as-of YYYY-MM-DD] [--json]
 *
 * Parses each bank statement (PDF/image through @ledgerlens/statements, or a .json file holding a
 * StatementInput in camelCase or the snake_case shape printed by `statements parse --json`), runs the
 * underwriting analysis over all of them as one deal and prints the per-transaction categories and
 * flags, deal metrics, lender positions, cross-document findings, health score and the
 * recommendation of the default ruleset.
 * Exit codes: 0 ok, 1 usage, 2 a file could not be read or parsed.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  DEFAULT_RULESET,
  analyzeDeal,
  evaluateRuleset,
  type Evaluation,
  type StatementInput,
  type StatementTransactionInput,
} from '@ledgerlens/underwriting';

const USAGE = 'usage: statements analyze FILE... --funding N [--as-of YYYY-MM-DD] [--json]';
const VALUE_FLAGS = ['--funding', '--as-of'];

interface FileReport {
  file: string;
  document_type: string;
  transaction_count: number;
  used: boolean;
  warnings: string[];
}

type Obj = Record<string, unknown>;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Accepts a StatementInput (camelCase) or the snake_case JSON of `statements parse --json`. */
export function statementFromJson(raw: unknown, id: string): StatementInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('expected a JSON object holding one statement');
  const o = raw as Obj;
  const txs = o.transactions;
  if (!Array.isArray(txs)) throw new Error('the statement has no "transactions" array');
  const transactions: StatementTransactionInput[] = txs.map((t, i) => {
    const x = t as Obj;
    const amount = num(x.amount);
    const date = str(x.date);
    if (amount === null || date === null) throw new Error(`transaction ${i + 1} needs a numeric amount and a YYYY-MM-DD date`);
    const type = str(x.transactionType) ?? str(x.transaction_type);
    return {
      date,
      description: str(x.description) ?? '',
      amount,
      balance: num(x.balance),
      ...(type === 'credit' || type === 'debit' ? { transactionType: type } : {}),
    };
  });
  return {
    id: (o.id as string | number | undefined) ?? id,
    bankName: str(o.bankName) ?? str(o.bank_name),
    accountNumberLast4: str(o.accountNumberLast4) ?? str(o.account_number_last4) ?? str(o.account_last_four),
    accountHolder: str(o.accountHolder) ?? str(o.account_holder),
    periodStart: str(o.periodStart) ?? str(o.statement_period_start) ?? str(o.period_start),
    periodEnd: str(o.periodEnd) ?? str(o.statement_period_end) ?? str(o.period_end),
    openingBalance: num(o.openingBalance) ?? num(o.opening_balance),
    closingBalance: num(o.closingBalance) ?? num(o.closing_balance),
    transactions,
  };
}

async function loadFile(file: string): Promise<{ statement: StatementInput | null; report: FileReport }> {
  const name = path.basename(file);
  const bytes = fs.readFileSync(file);
  if (name.toLowerCase().endsWith('.json')) {
    const st = statementFromJson(JSON.parse(bytes.toString('utf8')), name);
    return {
      statement: st,
      report: { file, document_type: 'bank_statement', transaction_count: st.transactions.length, used: true, warnings: [] },
    };
  }
  // loaded only when a document has to be parsed (it brings the PDF/OCR stack with it)
  const { parseStatementFile } = require('@ledgerlens/statements') as typeof import('@ledgerlens/statements');
  const r = await parseStatementFile(new Uint8Array(bytes), { filename: name });
  const report: FileReport = {
    file,
    document_type: r.documentType,
    transaction_count: r.transactions.length,
    used: false,
    warnings: [...r.warnings],
  };
  if (r.documentType !== 'bank_statement') {
    report.warnings.push(`not a bank statement (${r.documentType}); left out of the analysis`);
    return { statement: null, report };
  }
  report.used = true;
  return {
    statement: {
      id: name,
      bankName: r.bankName,
      accountNumberLast4: r.accountNumberLast4,
      accountHolder: r.accountHolder,
      periodStart: r.periodStart,
      periodEnd: r.periodEnd,
      openingBalance: r.openingBalance,
      closingBalance: r.closingBalance,
      transactions: r.transactions.map((t) => ({
        date: t.date,
        description: t.description,
        amount: t.amount,
        balance: t.balance,
        transactionType: t.transactionType,
      })),
    },
    report,
  };
}

const money = (x: number | null) => (x === null ? '-' : x.toLocaleString('en-US', { style: 'currency', currency: 'USD' }));

function human(a: ReturnType<typeof analyzeDeal>, rec: Evaluation, files: FileReport[]): string {
  const f = a.financials;
  const lines: string[] = [];
  for (const r of files)
    lines.push(`${path.basename(r.file)}: ${r.document_type}, ${r.transaction_count} transactions${r.used ? '' : ' (not used)'}`);
  lines.push(
    `coverage: ${a.coverage.statement_count} statement(s), ${a.coverage.days_covered} days, ${a.coverage.months_covered} month(s) (${a.coverage.period_start ?? '?'} .. ${a.coverage.period_end ?? '?'})`,
    `deposits ${money(f.total_deposits)} | withdrawals ${money(f.total_withdrawals)} | avg monthly deposits ${money(f.avg_monthly_deposits)} | avg monthly revenue ${money(f.avg_monthly_revenue)}`,
    `true revenue ${money(a.revenue.totals.true_revenue)} of ${money(a.revenue.totals.gross_deposits)} deposits | excluded ${
      Object.entries(a.revenue.totals.excluded)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${money(v)}`)
        .join(', ') || 'none'
    } | cash deposits ${money(a.revenue.totals.cash_deposits)} (docs/revenue.md)`,
    `avg daily balance ${money(f.avg_daily_balance)} | ending ${money(f.ending_balance)} | negative days ${f.negative_balance_days} | deposits/month ${f.deposit_frequency_per_month}`,
    `NSF fees ${a.nsf_overdraft.total_nsf_fees} (${money(a.nsf_overdraft.nsf_fee_amount)}, ${a.nsf_overdraft.nsf_months} month(s)) | overdraft fees ${a.nsf_overdraft.total_overdraft_fees} (${money(a.nsf_overdraft.overdraft_fee_amount)})`,
    `screening: ${a.screening.total_flags} flag(s) ${Object.entries(a.screening.buckets)
      .filter(([, n]) => n > 0)
      .map(([b, n]) => `${b}=${n}`)
      .join(' ')}`,
    `lender positions: ${a.lender_positions.position_count} (stacking ${a.lender_positions.stacking_count}, active ${a.lender_positions.active_count})`,
  );
  for (const p of a.lender_positions.positions) {
    lines.push(
      `  ${p.counterparty}: ${p.frequency} ${money(p.payment_amount)} x${p.payment_count}, ${p.first_seen}..${p.last_seen}, ~${money(p.estimated_monthly_total)}/month${p.share_of_deposits === null ? '' : ` (${(p.share_of_deposits * 100).toFixed(1)}% of deposits)`}${p.is_active ? '' : ', inactive'}`,
    );
  }
  lines.push(`cross-document: score ${a.cross_doc.score}`);
  for (const x of a.cross_doc.findings) lines.push(`  [${x.severity}] ${x.message}`);
  lines.push(
    `health: ${a.health.score} (${a.health.grade}) ${Object.entries(a.health.factors)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`,
  );
  lines.push(
    `recommendation (${rec.ruleset_name}): ${rec.decision.toUpperCase()} score ${rec.total_score} grade ${rec.grade} max advance ${money(rec.max_advance)} cfcr ${rec.cfcr}${rec.cfcr_below_target ? ` (below target ${rec.cfcr_target})` : ''}`,
  );
  for (const r of rec.reasons) lines.push(`  - ${r}`);
  const flagged = a.transactions.filter((t) => t.screening_bucket);
  if (flagged.length) lines.push(`flagged transactions (${flagged.length}):`);
  for (const t of flagged.slice(0, 40))
    lines.push(`  ${t.date} ${t.amount.toFixed(2).padStart(12)} ${t.category.padEnd(17)} ${t.screening_bucket}: ${t.description}`);
  if (flagged.length > 40) lines.push(`  ... ${flagged.length - 40} more (use --json)`);
  return lines.join('\n');
}

export async function runAnalyze(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  // accept --funding=N and --as-of=DATE as well
  argv = argv.flatMap((a) => (/^--(funding|as-of)=/.test(a) ? a.split(/=(.*)/s, 2) : [a]));
  const files = argv.filter((a, i) => !a.startsWith('--') && !VALUE_FLAGS.includes(argv[i - 1]));
  const fundingArg = argv.includes('--funding') ? argv[argv.indexOf('--funding') + 1] : undefined;
  const asOf = argv.includes('--as-of') ? argv[argv.indexOf('--as-of') + 1] : undefined;
  const json = argv.includes('--json');
  const funding = fundingArg === undefined ? NaN : Number(fundingArg);
  if (!files.length || !(funding > 0)) {
    console.error(USAGE);
    if (files.length) console.error('--funding must be a number greater than 0');
    return 1;
  }
  if (asOf !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(asOf)) {
    console.error('--as-of must be a date YYYY-MM-DD');
    return 1;
  }
  const statements: StatementInput[] = [];
  const reports: FileReport[] = [];
  for (const file of files) {
    try {
      const { statement, report } = await loadFile(file);
      reports.push(report);
      if (statement) statements.push(statement);
    } catch (e) {
      const err = e as Error & { code?: string };
      const body = {
        error: {
          code: typeof err.code === 'string' && !err.code.startsWith('E') ? err.code : 'unreadable',
          message: `${path.basename(file)}: ${err.message}`,
          file,
        },
      };
      if (json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      else console.error(`error (${body.error.code}): ${body.error.message}`);
      return 2;
    }
  }
  let analysis: ReturnType<typeof analyzeDeal>;
  try {
    analysis = analyzeDeal({ statements, fundingAmountRequested: funding, asOf });
  } catch (e) {
    const body = { error: { code: 'invalid_statement', message: (e as Error).message } };
    if (json) process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    else console.error(`error (invalid_statement): ${body.error.message}`);
    return 2;
  }
  // the default ruleset with the holds every evaluation applies (a coverage below target never approves)
  const recommendation = evaluateRuleset(analysis, { id: 0, name: 'Default', kind: 'flat', definition: { ...DEFAULT_RULESET } });
  if (json) process.stdout.write(`${JSON.stringify({ files: reports, analysis, recommendation }, null, 2)}\n`);
  else process.stdout.write(`${human(analysis, recommendation, reports)}\n`);
  return 0;
}

if (require.main === module) {
  runAnalyze(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(2);
    },
  );
}
