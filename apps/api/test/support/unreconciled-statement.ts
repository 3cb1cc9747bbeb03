import { LAYOUTS } from '../../../../tools/corpus/layouts';
import { makeModel } from '../../../../tools/corpus/model';
import { hashSeed, Rng } from '../../../../tools/corpus/rng';

/**
 * A real statement PDF whose figures do not add up: the printed closing balance is `difference`
 * above what the opening balance and the transactions give, as a statement read wrong would be.
 * The parser reads every row, reports it unreconciled and marks it for review
 * ("does not reconcile: ... (difference <difference>)").
 */
export async function unreconciledStatement(seed: number, transactions = 30, difference = 59673): Promise<Uint8Array> {
  const layout = LAYOUTS.find((l) => l.name === 'signed_single_column')!;
  const r = new Rng(hashSeed(seed, layout.name, transactions));
  const model = makeModel(r, { transactions, crossYear: false });
  model.closingBalance = Math.round((model.closingBalance + difference) * 100) / 100;
  return (await layout.render(model, r)).bytes;
}
