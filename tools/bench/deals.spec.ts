import { analyzeDeal } from '@ledgerlens/underwriting';
import { generateDeal } from '../corpus/deals';
import { TARGETS, runDealsBench, scoreDeal, shortfalls } from './deals';

/** A small seeded run of the deals benchmark (npm run bench:deals runs 40). */
describe('deals bench, seeded', () => {
  it('reaches the targets on 12 generated merchants', () => {
    const r = runDealsBench(12, 1);
    expect(r.deals).toHaveLength(12);
    expect(shortfalls(r)).toEqual([]);
    expect(r.transfer_recall).toBeGreaterThanOrEqual(TARGETS.transfer_recall);
    // some of the 12 carry a stale statement, and each was named
    expect(r.deals.some((d) => d.stale_expected > 0)).toBe(true);
    expect(r.stale_recall).toBe(1);
  });

  it('the generator writes a consistent answer: two accounts, chained balances, the transfers it made', () => {
    const deal = generateDeal(7);
    const again = generateDeal(7);
    expect(again).toEqual(deal);
    expect(deal.statements).toHaveLength(6 + deal.truth.stale_statement_ids.length);
    for (const account of [0, 1]) {
      const own = deal.statements.filter((s) => String(s.id).split('-')[1] === String(account));
      for (let k = 1; k < own.length; k++) expect(own[k].openingBalance).toBe(own[k - 1].closingBalance);
    }
    expect(deal.truth.positions.length).toBeGreaterThanOrEqual(1);
    expect(deal.truth.positions.length).toBeLessThanOrEqual(3);
    const a = analyzeDeal({ statements: deal.statements, fundingAmountRequested: 50000 });
    expect(a.accounts).toHaveLength(2);
    expect(a.cross_doc.findings.filter((f) => f.deduction > 0)).toEqual([]);
  });

  it('scores what it is given: an analysis without the transfers matches none', () => {
    const deal = generateDeal(3);
    const a = analyzeDeal({ statements: deal.statements, fundingAmountRequested: 50000 });
    const full = scoreDeal(deal, a);
    expect(full.transfers_matched).toBe(deal.truth.transfers.length);
    const none = scoreDeal(deal, { ...a, own_transfers: { ...a.own_transfers, transfers: [] } });
    expect(none).toMatchObject({ transfers_matched: 0, transfers_false: 0 });
    const shifted = a.own_transfers.transfers.map((t) => ({ ...t, amount: t.amount + 1 }));
    expect(scoreDeal(deal, { ...a, own_transfers: { ...a.own_transfers, transfers: shifted } }).transfers_false).toBe(shifted.length);
  });
});
