import { buildDealReport, type DealAnalysis, type StatementInput, type StatementTransactionInput } from '@ledgerlens/underwriting';
import { Deal } from '../../src/modules/pipeline/entities/deal.entities';
import { applyReport } from '../../src/modules/pipeline/services/deal-report';
import { RecommendationsService } from '../../src/modules/pipeline/services/recommendations.service';
import { Database } from '../../src/platform/database/database.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { TestApp } from './harness';
import { Rng } from '../../../../tools/corpus/rng';

export type DealProfile = 'strong' | 'weak';

export interface ReadyDealOptions {
  businessName?: string;
  funding?: number;
  profile?: DealProfile;
  /** the statements to analyse instead of makeStatements(profile) */
  statements?: StatementInput[];
  /** also run the pipeline's recommendation step (RecommendationsService.generateDefault) */
  recommend?: boolean;
}

export interface ReadyDeal {
  id: number;
  organizationId: number;
  livemode: boolean;
  analysis: DealAnalysis;
}

/** Seeded mulberry32 (the corpus generator's): reproducible amounts. */
function prng(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

const pad = (n: number) => String(n).padStart(2, '0');
const cents = (n: number) => Math.round(n * 100) / 100;

/**
 * Three monthly statements (Jan-Mar 2025) of one account as the statements parser would produce
 * them. `strong`: steady card revenue, no fees. `weak`: thin revenue, NSF/overdraft fees and a
 * daily MCA debit.
 */
export function makeStatements(profile: DealProfile, seed = 7): StatementInput[] {
  const rand = prng(seed);
  let balance = profile === 'strong' ? 18000 : 900;
  const statements: StatementInput[] = [];
  for (const month of [1, 2, 3]) {
    const days = new Date(Date.UTC(2025, month, 0)).getUTCDate();
    const opening = cents(balance);
    const txs: StatementTransactionInput[] = [];
    const add = (day: number, description: string, amount: number) => {
      balance = cents(balance + amount);
      txs.push({ date: `2025-${pad(month)}-${pad(day)}`, description, amount: cents(amount), balance });
    };
    for (let day = 1; day <= days; day++) {
      const dow = new Date(Date.UTC(2025, month - 1, day)).getUTCDay();
      if (dow === 0 || dow === 6) continue;
      if (profile === 'strong') add(day, 'SQUARE INC DEPOSIT', 1800 + Math.round(rand() * 900));
      else if (dow !== 3) add(day, 'STRIPE TRANSFER PAYOUT', 350 + Math.round(rand() * 200));
      if (profile === 'weak') add(day, 'ONDECK CAPITAL DAILY PMT', -95);
      if (dow === 5) add(day, 'GUSTO PAYROLL', profile === 'strong' ? -6200 : -900);
    }
    add(3, 'ACME PROPERTIES RENT', profile === 'strong' ? -4500 : -1500);
    add(12, 'CITY UTILITIES', -380);
    if (profile === 'weak') {
      add(14, 'NSF FEE', -36);
      add(21, 'OVERDRAFT FEE', -35);
    }
    statements.push({
      id: `stmt-${month}`,
      bankName: 'First Test Bank',
      accountNumberLast4: '4321',
      accountHolder: 'Test Merchant LLC',
      periodStart: `2025-${pad(month)}-01`,
      periodEnd: `2025-${pad(month)}-${pad(days)}`,
      openingBalance: opening,
      closingBalance: cents(balance),
      transactions: txs.sort((x, y) => x.date.localeCompare(y.date)),
    });
  }
  return statements;
}

/**
 * The `weak` statements with what the underwriting tables show: OnDeck funds a renewal of its
 * daily position (a loan-proceeds deposit), one payment is returned, a savings account sends
 * the checking account a transfer (an own-account transfer), and card sales lift revenue so
 * the affordability arithmetic leaves room for an advance.
 */
export function underwritingStatements(): StatementInput[] {
  const statements = makeStatements('weak');
  const checking = statements[0];
  const extra: StatementTransactionInput[] = [
    { date: '2025-01-02', description: 'ONDECK CAPITAL FUNDING DEPOSIT', amount: 15000, balance: 0 },
    { date: '2025-01-09', description: 'ONLINE TRANSFER FROM CHK 9876', amount: 2500, balance: 0 },
    { date: '2025-01-10', description: 'RETURNED ITEM ONDECK CAPITAL DAILY PMT', amount: 95, balance: 0 },
  ];
  for (const st of statements)
    extra.push({ date: `${st.periodStart!.slice(0, 8)}15`, description: 'SQUARE INC DEPOSIT', amount: 9000, balance: 0 });
  for (const t of extra) {
    const st = statements.find((s) => s.periodStart!.slice(0, 7) === t.date.slice(0, 7)) ?? checking;
    st.transactions.push(t);
  }
  // running balances again, statement by statement
  let balance = checking.openingBalance ?? 0;
  for (const st of statements) {
    st.openingBalance = balance;
    st.transactions.sort((x, y) => x.date.localeCompare(y.date));
    for (const t of st.transactions) t.balance = balance = cents(balance + t.amount);
    st.closingBalance = balance;
  }
  statements.push({
    id: 'savings-1',
    bankName: 'First Test Bank',
    accountNumberLast4: '9876',
    accountHolder: 'Test Merchant LLC',
    periodStart: '2025-01-01',
    periodEnd: '2025-01-31',
    openingBalance: 10000,
    closingBalance: 7500,
    transactions: [{ date: '2025-01-09', description: 'ONLINE TRANSFER TO CHK 4321', amount: -2500, balance: 7500 }],
  });
  return statements;
}

/** Creates a deal through the API and makes it `ready` as the pipeline would (report + analysis, built by buildDealReport). */
export async function newReadyDeal(app: TestApp, key: string, options: ReadyDealOptions = {}): Promise<ReadyDeal> {
  const funding = options.funding ?? 40000;
  const created = await app.request('POST', '/v1/deals', {
    key,
    body: { business_name: options.businessName ?? 'Ready Bakery LLC', funding_amount_requested: funding, industry: 'Food service' },
  });
  if (created.status !== 201) throw new Error(`deal create failed: ${created.status}`);
  const id: number = created.body.id;
  // Document ids 1..3 stand for the statements: the report only names them.
  const documents = (options.statements ?? makeStatements(options.profile ?? 'strong')).map((st, i) => ({
    ...st,
    id: i + 1,
    filename: `${st.id}.pdf`,
    documentType: 'bank_statement',
    status: 'completed',
    riskLevel: 'low' as const,
    reconciled: true,
  }));
  const built = buildDealReport({ documents, fundingAmountRequested: funding, reportDate: '2025-04-01' });
  const analysis = built.analysis!;
  const em = app.get(Database).system();
  await em.transactional(async (tx) => {
    const deal = await tx.findOneOrFail(Deal, { id }, { filters: false });
    deal.status = 'ready';
    applyReport(deal, built);
    deal.updatedAt = new Date();
    if (options.recommend) {
      await app
        .get(RecommendationsService)
        .generateDefault(UnitOfWork.of(tx), { organizationId: deal.organizationId, livemode: deal.livemode }, deal);
    }
  });
  const deal = await em.findOneOrFail(Deal, { id }, { filters: false });
  return { id, organizationId: deal.organizationId, livemode: deal.livemode, analysis };
}
