import type { DealDetailDto } from '../../pipeline/dto/deal.dto';
import { COLOR, ReportWriter } from './layout';

/** Own-account transfers listed in the PDF (the deal JSON has them all). */
export const TRANSFERS_SHOWN = 12;

const money = (n: number) => n.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
const span = (start: string | null, end: string | null) =>
  !start || !end ? '—' : start.slice(0, 4) === end.slice(0, 4) ? `${start} – ${end.slice(5)}` : `${start} – ${end}`;
const GROUPED: Record<string, string> = {
  account_number: 'Account number',
  balance_continuity: 'Balance continuity',
  single_statement: 'One statement',
};

/**
 * The report's accounts (with the stale statements left out), own-account transfers and
 * affordability arithmetic. A report stored before these were computed shows none of them.
 */
export function accountsAndAffordability(w: ReportWriter, deal: DealDetailDto): void {
  trueRevenue(w, deal);
  if (deal.accounts.length) {
    w.heading('Accounts', `${deal.accounts.length} account${deal.accounts.length === 1 ? '' : 's'}`, ReportWriter.tableHeight(2));
    const name = new Map(deal.statements.map((s) => [s.document_id, s.filename]));
    w.table(
      [
        { title: 'Account', width: 50 },
        { title: 'Bank', width: 100, lines: 2 },
        { title: 'Acct', width: 44 },
        { title: 'Statements', width: 176, lines: 3 },
        { title: 'Period', width: 120 },
        { title: 'Grouped by', width: 100, lines: 2 },
      ],
      deal.accounts.map((a) => [
        a.account,
        a.bank_name ?? '—',
        a.account_number_last4 ? `••${a.account_number_last4}` : '—',
        a.statement_ids.map((id) => name.get(id as number) ?? String(id)).join(', '),
        span(a.period_start, a.period_end),
        GROUPED[a.grouped_by] ?? a.grouped_by,
      ]),
    );
  }
  const stale = deal.staleness?.stale_statements ?? [];
  if (stale.length) {
    const name = new Map(deal.statements.map((s) => [s.document_id, s.filename]));
    w.paragraph(
      `Stale, left out of every figure (${deal.staleness!.lookback_months} or more months before the newest statement, ${deal.staleness!.newest_period_end}): ` +
        stale.map((s) => `${name.get(s.statement_id as number) ?? s.statement_id} (${span(s.period_start, s.period_end)})`).join('; '),
      { color: COLOR.warn },
    );
  }
  transfers(w, deal);
  const a = deal.affordability;
  if (a) {
    w.heading('Affordability', `max advance ${money(a.max_advance)}`, 60);
    w.bullets(a.steps);
  }
}

function transfers(w: ReportWriter, deal: DealDetailDto): void {
  const t = deal.own_transfers;
  if (!t || !t.count) return;
  w.heading('Own-account transfers', `${t.count} · ${money(t.total)} · neither revenue nor expense`, ReportWriter.tableHeight(2));
  w.table(
    [
      { title: 'Amount', width: 80, align: 'right' },
      { title: 'Debit', width: 70 },
      { title: 'From', width: 150, lines: 2 },
      { title: 'Credit', width: 70 },
      { title: 'To', width: 150, lines: 2 },
    ],
    t.transfers
      .slice(0, TRANSFERS_SHOWN)
      .map((x) => [
        money(x.amount),
        x.debit.date,
        `${x.debit.account}: ${x.debit.description}`,
        x.credit.date,
        `${x.credit.account}: ${x.credit.description}`,
      ]),
  );
  if (t.count > TRANSFERS_SHOWN) {
    w.paragraph(`The first ${TRANSFERS_SHOWN} are listed; all ${t.count} are in the deal report (own_transfers).`, {
      size: 8,
      color: COLOR.muted,
    });
  }
}

/** True revenue per month: every deposit, what each non-revenue class took out, what is left. */
function trueRevenue(w: ReportWriter, deal: DealDetailDto): void {
  const r = deal.revenue;
  if (!r || !r.months.length) return;
  const whole = (n: number) => n.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
  const unnamed = r.unidentified_count
    ? ` · ${r.unidentified_count} deposits no rule named (${whole(r.unidentified_total)}) counted as revenue`
    : '';
  w.heading(
    'True revenue',
    `${whole(r.totals.true_revenue)} of ${whole(r.totals.gross_deposits)} deposits${unnamed}`,
    ReportWriter.tableHeight(r.months.length + 1),
  );
  const row = (label: string, m: (typeof r.months)[number] | typeof r.totals) => [
    label,
    whole(m.gross_deposits),
    whole(m.excluded.transfer),
    whole(m.excluded.loan_proceeds),
    whole(m.excluded.refund),
    whole(m.excluded.owner_injection),
    whole(m.excluded.other_non_revenue),
    whole(m.true_revenue),
    whole(m.cash_deposits),
  ];
  w.table(
    [
      { title: 'Month', width: 58 },
      { title: 'Deposits', width: 66, align: 'right' },
      { title: 'Transfers', width: 58, align: 'right' },
      { title: 'Loans/MCA', width: 58, align: 'right' },
      { title: 'Refunds', width: 52, align: 'right' },
      { title: 'Owner', width: 52, align: 'right' },
      { title: 'Other', width: 48, align: 'right' },
      { title: 'True revenue', width: 70, align: 'right' },
      { title: 'Cash', width: 52, align: 'right' },
    ],
    [...r.months.map((m) => row(m.month, m)), row('Total', r.totals)],
  );
}
