import { statement, tx } from './__fixtures__/helpers';
import { analyzeDeal } from './deal';
import { personNameWords } from './revenue';
import { describeFactor } from './ruleset';
import type { StatementInput, StatementTransactionInput } from './types';

const deal = (statements: StatementInput[]) => analyzeDeal({ statements, fundingAmountRequested: 20_000 });
const june = (transactions: StatementTransactionInput[], holder = 'Test Merchant LLC') =>
  statement({ id: 1, periodStart: '2025-06-01', periodEnd: '2025-06-30', accountHolder: holder, transactions });
const row = (a: ReturnType<typeof deal>, description: string) => a.transactions.find((t) => t.description === description)!;

describe('true revenue: deposit classes', () => {
  const txs = [
    tx('2025-06-02', 'SQUARE INC DEPOSIT', 5000),
    tx('2025-06-03', 'DEPOSIT 88231 ABC PLUMBING', 1200),
    tx('2025-06-04', 'MISC CREDIT 4411', 900),
    tx('2025-06-05', 'ONLINE TRANSFER FROM SAVINGS 9911', 3000),
    tx('2025-06-06', 'ONDECK CAPITAL FUNDING', 25000),
    tx('2025-06-09', 'REFUND AMAZON', 80.5),
    tx('2025-06-10', 'OWNER CONTRIBUTION', 10000),
    tx('2025-06-11', 'CAPITAL CONTRIBUTION J SMITH', 4000),
    tx('2025-06-12', 'CASH DEPOSIT BRANCH 12', 650.25),
    tx('2025-06-13', 'INTEREST PAID', 1.11),
    tx('2025-06-16', 'SHELL OIL', -75),
  ];
  const a = deal([june(txs)]);

  it('names each deposit with its class and the rule that decided it; a debit has none', () => {
    const classes = txs.map((t) => [t.description, row(a, t.description).revenue_class]);
    expect(classes).toEqual([
      ['SQUARE INC DEPOSIT', 'revenue'],
      ['DEPOSIT 88231 ABC PLUMBING', 'revenue'],
      ['MISC CREDIT 4411', 'revenue'],
      ['ONLINE TRANSFER FROM SAVINGS 9911', 'transfer'],
      ['ONDECK CAPITAL FUNDING', 'loan_proceeds'],
      ['REFUND AMAZON', 'refund'],
      ['OWNER CONTRIBUTION', 'owner_injection'],
      ['CAPITAL CONTRIBUTION J SMITH', 'owner_injection'],
      ['CASH DEPOSIT BRANCH 12', 'revenue'],
      ['INTEREST PAID', 'other_non_revenue'],
      ['SHELL OIL', null],
    ]);
    expect(row(a, 'MISC CREDIT 4411').revenue_rule).toMatch(/unidentified deposit \(revenue: no rule excludes it\)/);
    expect(row(a, 'ONDECK CAPITAL FUNDING').revenue_rule).toBe('loan or advance proceeds');
    expect(row(a, 'SHELL OIL').revenue_rule).toBeNull();
    expect(row(a, 'CASH DEPOSIT BRANCH 12').is_cash_deposit).toBe(true);
    expect(row(a, 'SQUARE INC DEPOSIT').is_cash_deposit).toBe(false);
  });

  it('counts an unidentified deposit as revenue (deposits no rule names are not left out)', () => {
    // revenue = 5000 + 1200 + 900 + 650.25
    expect(a.financials.total_revenue).toBe(7750.25);
    expect(a.revenue.totals.true_revenue).toBe(7750.25);
  });

  it('tables the month: gross deposits, what each class excluded, true revenue, cash deposits', () => {
    expect(a.revenue.months).toEqual([
      {
        month: '2025-06',
        gross_deposits: 49831.86,
        excluded: { transfer: 3000, loan_proceeds: 25000, refund: 80.5, owner_injection: 14000, other_non_revenue: 1.11 },
        excluded_total: 42081.61,
        true_revenue: 7750.25,
        cash_deposits: 650.25,
      },
    ]);
    const { month: _month, ...only } = a.revenue.months[0];
    expect(a.revenue.totals).toEqual(only);
    expect(a.revenue.totals.gross_deposits).toBe(a.financials.total_deposits);
    expect(a.revenue.months[0].true_revenue).toBe(a.monthly[0].revenue);
    expect([a.revenue.deposit_count, a.revenue.cash_deposit_count, a.revenue.overridden_count]).toEqual([10, 1, 0]);
    // MISC CREDIT 4411 is the one deposit no rule names
    expect([a.revenue.unidentified_count, a.revenue.unidentified_total]).toEqual([1, 900]);
  });
});

describe('true revenue: the account holder', () => {
  it('reads a person holder; a business holder is none', () => {
    expect(personNameWords('JOHN Q SMITH')).toEqual(['john', 'smith']);
    expect(personNameWords('Maria Lopez DBA Lopez Bakery')).toEqual(['maria', 'lopez']);
    expect(personNameWords('Test Merchant LLC')).toBeNull();
    expect(personNameWords('ACME')).toBeNull();
    expect(personNameWords(null)).toBeNull();
  });

  it('a transfer or an unnamed deposit naming the holder (a person) is an owner injection', () => {
    const txs = [
      tx('2025-06-02', 'ZELLE FROM MARIA LOPEZ', 2500),
      tx('2025-06-03', 'ONLINE TRANSFER FROM LOPEZ MARIA CHK 1234', 1500),
      tx('2025-06-04', 'ZELLE FROM CARLOS RUIZ', 300),
      tx('2025-06-05', 'STRIPE TRANSFER MARIA LOPEZ', 900),
    ];
    const a = deal([june(txs, 'Maria Lopez DBA Lopez Bakery')]);
    expect(txs.map((t) => row(a, t.description).revenue_class)).toEqual(['owner_injection', 'owner_injection', 'revenue', 'revenue']);
    expect(row(a, 'ZELLE FROM MARIA LOPEZ').revenue_rule).toMatch(/account holder/);
    // the same deposits on a business's account: a customer payment and an own-account transfer
    const b = deal([june(txs, 'Lopez Bakery LLC')]);
    expect(txs.map((t) => row(b, t.description).revenue_class)).toEqual(['revenue', 'transfer', 'revenue', 'revenue']);
  });
});

describe('true revenue: an underwriter override', () => {
  const base = [
    tx('2025-06-02', 'SQUARE INC DEPOSIT', 5000),
    tx('2025-06-03', 'ZELLE FROM J DOE', 1234.56),
    tx('2025-06-04', 'SHELL OIL', -50),
  ];

  it('a class set on a deposit wins over the rules; revenue drops by exactly its amount and the figures follow', () => {
    const before = deal([june(base)]);
    const overridden = base.map((t) => (t.description === 'ZELLE FROM J DOE' ? { ...t, revenueClass: 'owner_injection' as const } : t));
    const after = deal([june(overridden)]);
    expect(Math.round((before.financials.total_revenue - after.financials.total_revenue) * 100)).toBe(123456);
    expect(row(after, 'ZELLE FROM J DOE')).toMatchObject({
      revenue_class: 'owner_injection',
      revenue_rule: 'set by an underwriter',
      category: 'non_revenue',
    });
    expect(after.revenue.totals.excluded.owner_injection).toBe(1234.56);
    expect(after.revenue.overridden_count).toBe(1);
    expect(after.cash_flow.monthly_revenue).toBeLessThan(before.cash_flow.monthly_revenue);
    expect(after.factor_scores.revenue).toBeLessThan(before.factor_scores.revenue);
  });

  it('a class set to revenue brings an excluded deposit back; a corrected category counts too', () => {
    const txs = [tx('2025-06-02', 'ONLINE TRANSFER FROM SAVINGS', 700, null), tx('2025-06-03', 'SQUARE INC DEPOSIT', 300)];
    expect(deal([june(txs)]).financials.total_revenue).toBe(300);
    expect(deal([june([{ ...txs[0], revenueClass: 'revenue' }, txs[1]])]).financials.total_revenue).toBe(1000);
    const byCategory = deal([june([txs[0], { ...txs[1], category: 'non_revenue' }])]);
    expect(byCategory.financials.total_revenue).toBe(0);
    expect(row(byCategory, 'SQUARE INC DEPOSIT').revenue_class).toBe('other_non_revenue');
  });
});

describe('revenue trend on no revenue', () => {
  const month = (m: number, revenue: number): StatementInput => {
    const mm = String(m).padStart(2, '0');
    const last = new Date(Date.UTC(2025, m, 0)).getUTCDate();
    return statement({
      id: m,
      periodStart: `2025-${mm}-01`,
      periodEnd: `2025-${mm}-${last}`,
      openingBalance: 1000,
      transactions: [
        tx(`2025-${mm}-05`, 'ONLINE TRANSFER FROM SAVINGS', 5000),
        ...(revenue ? [tx(`2025-${mm}-06`, 'SQUARE INC DEPOSIT', revenue)] : []),
      ],
    });
  };

  it('"$0 -> $0" with one month of revenue between scores nothing, not 100', () => {
    const a = deal([month(1, 0), month(2, 0), month(3, 700), month(4, 0)]);
    expect(a.health.factors.revenue_trend).toBe(0);
    expect(describeFactor(a, 'revenue_trend')).toBe(
      'revenue in 1 of 4 full months: no revenue trend to measure (not applicable, scores nothing)',
    );
  });

  it('a real trend is still measured: growth scores high, a fall to $0 scores low', () => {
    expect(deal([month(1, 1000), month(2, 2000), month(3, 3000)]).health.factors.revenue_trend).toBeGreaterThan(50);
    expect(deal([month(1, 3000), month(2, 2000), month(3, 0)]).health.factors.revenue_trend).toBeLessThan(50);
  });
});

describe('true revenue: the funding of a lender no name list knows', () => {
  // a lump from "SAMSON GROWTH", then its daily debits: its funding, not revenue
  const days = Array.from({ length: 20 }, (_, i) => `2025-06-${String(i + 3 + Math.floor(i / 5) * 2).padStart(2, '0')}`);
  const txs = [
    tx('2025-06-02', 'SAMSON GROWTH LLC ACH CREDIT', 30000),
    tx('2025-06-02', 'SQUARE INC DEPOSIT', 5000),
    ...days.map((d) => tx(d, 'SAMSON GROWTH LLC ACH DEBIT', -450)),
    // a later lump of the same name, after its last payment, is not taken for its funding
    tx('2025-06-30', 'SAMSON GROWTH LLC ACH CREDIT', 9000),
  ];
  const a = deal([june(txs)]);

  it('takes the lump before its repayments out of revenue as loan proceeds, with the rule that said so; the position has its funding', () => {
    const funding = a.transactions.find((t) => t.description === 'SAMSON GROWTH LLC ACH CREDIT' && t.amount === 30000)!;
    expect(funding).toMatchObject({ revenue_class: 'loan_proceeds', category: 'non_revenue' });
    expect(funding.revenue_rule).toMatch(/no name list knows it/);
    expect(a.revenue.totals.excluded.loan_proceeds).toBe(30000);
    expect(a.revenue.totals.true_revenue).toBe(14000);
    const position = a.lender_positions.positions.find((p) => p.counterparty === 'samson growth')!;
    expect(position).toMatchObject({ funding_amount: 30000, payment_amount: 450 });
    const later = a.transactions.find((t) => t.description === 'SAMSON GROWTH LLC ACH CREDIT' && t.amount === 9000)!;
    expect(later.revenue_class).toBe('revenue');
  });

  it("leaves a person's class as it is", () => {
    const overridden = deal([
      june(txs.map((t) => (t.amount === 30000 ? { ...t, revenueClass: 'revenue' as const, revenueClassOverride: true } : t))),
    ]);
    expect(overridden.transactions.find((t) => t.amount === 30000)!.revenue_class).toBe('revenue');
  });
});
