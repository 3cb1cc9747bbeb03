import type { DealDetailDto } from '../pipeline/dto/deal.dto';
import { boolCell, csvLine, intCell, moneyCell, textCell } from './csv';

/** The deal report's underwriting tables a CSV export can hold, one table per file. */
export const UNDERWRITING_TABLES = ['positions', 'revenue', 'transfers', 'affordability'] as const;
export type UnderwritingTable = (typeof UNDERWRITING_TABLES)[number];

const num = (n: number | null | undefined, digits = 4) =>
  n === null || n === undefined ? '' : String(Math.round(n * 10 ** digits) / 10 ** digits);

/**
 * One of the deal report's tables as CSV rows (header first), from the same report the JSON, the PDF
 * and the share page show: lender positions, true revenue per month (with a total row), own-account
 * transfers, or the affordability arithmetic (one row per input and step).
 */
export function underwritingCsv(deal: DealDetailDto, table: UnderwritingTable): string {
  const rows = ROWS[table](deal);
  return rows.map(csvLine).join('');
}

const ROWS: Record<UnderwritingTable, (deal: DealDetailDto) => string[][]> = {
  positions: (deal) => [
    [
      'lender',
      'lender_id',
      'counterparty',
      'sequence',
      'start_reason',
      'frequency',
      'payment_amount',
      'payment_count',
      'total_paid',
      'first_seen',
      'last_seen',
      'estimated_monthly_total',
      'funding_amount',
      'funding_date',
      'estimated_remaining_balance',
      'missed_payments',
      'bounced_payments',
      'stacked',
      'is_active',
      'transaction_ids',
    ],
    ...(deal.lender_positions?.positions ?? []).map((p) => [
      textCell(p.lender_name),
      textCell(p.lender_id),
      textCell(p.counterparty),
      intCell(p.sequence),
      textCell(p.start_reason),
      textCell(p.frequency),
      moneyCell(p.payment_amount),
      intCell(p.payment_count),
      moneyCell(p.total_paid),
      textCell(p.first_seen),
      textCell(p.last_seen),
      moneyCell(p.estimated_monthly_total),
      moneyCell(p.funding_amount),
      textCell(p.funding_date),
      moneyCell(p.estimated_remaining_balance),
      intCell(p.missed_payments),
      intCell(p.bounced_payments),
      boolCell(p.stacked),
      boolCell(p.is_active),
      textCell(
        p.transactions
          .map((t) => t.transaction_id)
          .filter((id) => id !== null)
          .join(' '),
      ),
    ]),
  ],
  revenue: (deal) => {
    const r = deal.revenue;
    const row = (month: string, m: NonNullable<typeof r>['totals']) => [
      textCell(month),
      moneyCell(m.gross_deposits),
      moneyCell(m.excluded.transfer),
      moneyCell(m.excluded.loan_proceeds),
      moneyCell(m.excluded.refund),
      moneyCell(m.excluded.owner_injection),
      moneyCell(m.excluded.other_non_revenue),
      moneyCell(m.excluded_total),
      moneyCell(m.true_revenue),
      moneyCell(m.cash_deposits),
    ];
    return [
      [
        'month',
        'gross_deposits',
        'transfer',
        'loan_proceeds',
        'refund',
        'owner_injection',
        'other_non_revenue',
        'excluded_total',
        'true_revenue',
        'cash_deposits',
      ],
      ...(r ? [...r.months.map((m) => row(m.month, m)), row('total', r.totals)] : []),
    ];
  },
  transfers: (deal) => [
    [
      'amount',
      'days_apart',
      'debit_date',
      'debit_account',
      'debit_statement_id',
      'debit_description',
      'credit_date',
      'credit_account',
      'credit_statement_id',
      'credit_description',
    ],
    ...(deal.own_transfers?.transfers ?? []).map((t) => [
      moneyCell(t.amount),
      intCell(t.days_apart),
      textCell(t.debit.date),
      textCell(t.debit.account),
      textCell(t.debit.statement_id === null ? null : String(t.debit.statement_id)),
      textCell(t.debit.description),
      textCell(t.credit.date),
      textCell(t.credit.account),
      textCell(t.credit.statement_id === null ? null : String(t.credit.statement_id)),
      textCell(t.credit.description),
    ]),
  ],
  affordability: (deal) => {
    const a = deal.affordability;
    if (!a) return [['item', 'value']];
    return [
      ['item', 'value'],
      ['monthly_revenue', moneyCell(a.monthly_revenue)],
      ['existing_monthly_debits', moneyCell(a.existing_monthly_debits)],
      ['active_position_count', intCell(a.active_position_count)],
      ['existing_holdback', num(a.existing_holdback)],
      ['max_total_holdback', num(a.max_total_holdback)],
      ['factor_rate', num(a.factor_rate)],
      ['term_months', num(a.term_months)],
      ['monthly_headroom', moneyCell(a.monthly_headroom)],
      ['max_payback', moneyCell(a.max_payback)],
      ['max_advance', moneyCell(a.max_advance)],
      ...a.steps.map((s, i) => [`step_${i + 1}`, textCell(s)]),
    ];
  },
};
