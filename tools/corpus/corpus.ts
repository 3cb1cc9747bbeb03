/** Builds the corpus in memory: statements (16 layouts, see layouts.ts and layouts-world.ts), scans, tax returns, P&Ls, letters, hostile files. */
import { LAYOUTS, Layout } from './layouts';
import { makeModel, TruthTransaction } from './model';
import { hashSeed, Rng } from './rng';
import { hostileFiles, letter, pageAsPng, profitAndLoss, scanned, taxReturn, withEditedMetadata } from './others';

export interface Truth {
  kind: 'statement' | 'scan' | 'image' | 'tax_return' | 'profit_and_loss' | 'other' | 'hostile' | 'tampered';
  layout: string | null;
  documentType: 'bank_statement' | 'tax_return' | 'profit_and_loss' | 'other' | null;
  expectError: string | null;
  expectRisk?: 'medium' | 'high';
  bankName?: string;
  accountHolder?: string;
  accountNumberLast4?: string;
  accountType?: string;
  periodStart?: string;
  periodEnd?: string;
  openingBalance?: number;
  closingBalance?: number;
  /** USD where the statement shows a US bank's charter (Member FDIC, "N.A."); absent where the generator does not say */
  currency?: string | null;
  transactions?: Array<Pick<TruthTransaction, 'date' | 'description' | 'amount' | 'balance'>>;
}

export interface CorpusItem {
  name: string;
  ext: 'pdf' | 'png' | 'bin';
  bytes: Uint8Array;
  truth: Truth;
}

export interface CorpusOptions {
  seed: number;
  /** transaction counts of the statements generated per layout */
  sizes: number[];
  scans: number;
  others: boolean;
  hostile: boolean;
  layouts?: string[];
}

export async function makeStatement(layout: Layout, seed: number, n: number): Promise<CorpusItem> {
  const r = new Rng(hashSeed(seed, layout.name, n));
  const m = makeModel(r, { transactions: n, crossYear: layout.crossYear === 'always' || (!!layout.crossYear && r.chance(0.5)) });
  const { bytes, rows } = await layout.render(m, r);
  return {
    name: `${layout.name}-s${seed}-n${n}`,
    ext: 'pdf',
    bytes,
    truth: {
      kind: 'statement',
      layout: layout.name,
      documentType: 'bank_statement',
      expectError: null,
      bankName: layout.name === 'trailing_minus_amount_first' ? m.bankName.toUpperCase() : m.bankName,
      accountHolder:
        layout.name === 'sectioned_unsigned' ||
        layout.name === 'trailing_minus_amount_first' ||
        layout.name === 'sectioned_signed' ||
        layout.name === 'credit_debit_daily_balance'
          ? m.accountHolder.toUpperCase()
          : m.accountHolder,
      accountNumberLast4: m.accountNumber.slice(-4),
      accountType: layout.name === 'trailing_minus_amount_first' ? m.accountType.toUpperCase() : m.accountType,
      periodStart: m.periodStart,
      periodEnd: m.periodEnd,
      openingBalance: m.openingBalance,
      closingBalance: m.closingBalance,
      currency: layout.charter || /,\s*N\.A\.$/.test(m.bankName) ? 'USD' : undefined,
      transactions: rows.map((t) => ({ date: t.date, description: t.description, amount: t.amount, balance: t.balance })),
    },
  };
}

export async function* buildCorpus(o: CorpusOptions): AsyncGenerator<CorpusItem> {
  const layouts = LAYOUTS.filter((l) => !o.layouts || o.layouts.includes(l.name));
  const firsts: CorpusItem[] = [];
  for (const l of layouts) {
    for (const n of o.sizes) {
      const item = await makeStatement(l, o.seed, n);
      if (firsts.length < layouts.length && n === o.sizes[0]) firsts.push(item);
      yield item;
    }
  }
  const r = new Rng(hashSeed(o.seed, 'extras'));
  for (let i = 0; i < o.scans && firsts.length; i++) {
    const src = firsts[i % firsts.length];
    // Every other scan is skewed by 1.2 to 2 degrees, alternately clockwise and counter-clockwise, as a
    // sheet fed askew: the reader must straighten it (tesseract's rotateAuto) before the table logic.
    const rot = i % 2 ? (1.2 + r.next() * 0.8) * (i % 4 === 1 ? 1 : -1) : 0;
    const bytes = await scanned(src.bytes, r, { dpi: 200, rotate: rot, noise: i % 2 ? 150 : 0 }, 3);
    // a one-page scan only holds the first page's transactions: ground truth is re-derived by the bench from the text version
    yield { name: `scan-${src.name}-${i}`, ext: 'pdf', bytes, truth: { ...src.truth, kind: 'scan', layout: `${src.truth.layout}` } };
  }
  if (o.others) {
    for (let i = 0; i < 2; i++) {
      yield {
        name: `tax-return-${i}`,
        ext: 'pdf',
        bytes: await taxReturn(r),
        truth: { kind: 'tax_return', layout: null, documentType: 'tax_return', expectError: null },
      };
      yield {
        name: `profit-and-loss-${i}`,
        ext: 'pdf',
        bytes: await profitAndLoss(r),
        truth: { kind: 'profit_and_loss', layout: null, documentType: 'profit_and_loss', expectError: null },
      };
      yield {
        name: `letter-${i}`,
        ext: 'pdf',
        bytes: await letter(r),
        truth: { kind: 'other', layout: null, documentType: 'other', expectError: null },
      };
    }
    if (firsts[0]) {
      yield {
        name: `tampered-${firsts[0].name}`,
        ext: 'pdf',
        bytes: await withEditedMetadata(firsts[0].bytes),
        truth: { ...firsts[0].truth, kind: 'tampered', expectRisk: 'medium' },
      };
      yield {
        name: `image-${firsts[0].name}`,
        ext: 'png',
        bytes: await pageAsPng(firsts[0].bytes),
        truth: { kind: 'image', layout: null, documentType: 'bank_statement', expectError: null },
      };
    }
  }
  if (o.hostile && firsts[0]) {
    for (const h of await hostileFiles(r, firsts[0].bytes)) {
      yield {
        name: `hostile-${h.name}`,
        ext: 'bin',
        bytes: h.bytes,
        truth: { kind: 'hostile', layout: null, documentType: null, expectError: h.expectError },
      };
    }
  }
}
