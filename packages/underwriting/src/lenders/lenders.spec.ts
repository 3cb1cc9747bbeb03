import { readFileSync } from 'fs';
import * as path from 'path';
import { descriptionFeatures, matchKnownLender } from '../categorize';
import {
  LENDER_DIRECTORY_VERSION,
  LENDER_KINDS,
  LenderMatcher,
  lenderDirectory,
  lenderMatcher,
  matchLender,
  nameWords,
  parseDescriptorCases,
  scoreDescriptorCases,
} from '.';

const idOf = (d: string) => matchLender(d)?.id ?? null;

describe('lender directory', () => {
  it('is versioned data: unique ids, known kinds, names long enough to match', () => {
    expect(LENDER_DIRECTORY_VERSION).toMatch(/^\d{4}\.\d+\.\d+$/);
    const entries = lenderDirectory();
    expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length);
    for (const e of entries) {
      expect(LENDER_KINDS).toContain(e.kind);
      for (const form of [e.name, ...e.aliases, ...e.descriptors]) expect(nameWords(form).join('').length).toBeGreaterThanOrEqual(3);
    }
    expect(entries.filter((e) => e.kind === 'mca' || e.kind === 'lender').length).toBeGreaterThanOrEqual(150);
  });

  it('gives every form one owner (no name of two entries)', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const e of lenderDirectory()) {
      for (const form of new Set([e.name, ...e.aliases, ...e.descriptors].map((f) => nameWords(f).join('')))) {
        const o = owner.get(form);
        if (o && o !== e.id) clashes.push(`${form}: ${o} / ${e.id}`);
        owner.set(form, e.id);
      }
    }
    expect(clashes).toEqual([]);
  });
});

describe('matchLender', () => {
  it('ignores spacing, punctuation and case', () => {
    expect(idOf('ON DECK CAPITAL')).toBe('ondeck');
    expect(idOf('ONDECK CAPITAL')).toBe('ondeck');
    expect(idOf('on-deck capital, inc.')).toBe('ondeck');
    expect(idOf('Funding-Circle USA')).toBe('funding-circle');
  });

  it('reads names cut by ACH field widths (16 / 22 characters) when the cut is long enough', () => {
    expect(matchLender('FORA FINANC ACH DEBIT')).toMatchObject({ id: 'fora-financial', truncated: true, matched: 'FORA FINANC' });
    expect(idOf('FORWARD FINANCIN')).toBe('forward-financing');
    // too short to tell: the first word alone, or two letters into the next
    expect(idOf('NATIONAL')).toBeNull();
    expect(idOf('YELLOWSTONE CA')).toBeNull();
    // a cut shared by two entries is no match ("NATIONAL FU": National Funding or National Fuel)
    expect(idOf('NATIONAL FU')).toBeNull();
  });

  it('matches at word starts only', () => {
    expect(idOf('XONDECK CAPITAL')).toBeNull();
    expect(idOf('ONDECK CAPITALS')).toBe('ondeck'); // "ONDECK" alone is a name
    expect(idOf('KALAMATA KITCHEN')).toBeNull();
  });

  it('tells banks, processors and payroll from funders (longest name wins)', () => {
    expect(matchLender('SQUARE INC DEPOSIT')).toMatchObject({ id: 'square', kind: 'processor', is_funder: false });
    expect(matchLender('SQ CAPITAL LOAN')).toMatchObject({ id: 'square-capital', is_funder: true });
    expect(matchLender('CAPITAL ONE MOBILE PMT')).toMatchObject({ id: 'capital-one', kind: 'bank' });
    expect(matchLender('CAPITAL ON TAP DD')).toMatchObject({ id: 'capital-on-tap', is_funder: true });
    expect(matchLender('ADP WAGE PAY')).toMatchObject({ kind: 'payroll' });
    expect(matchLender('BLUEVINE DES:TRANSFER')).toMatchObject({ id: 'bluevine', kind: 'fintech_bank' });
    expect(matchLender('BLUEVINE CAPITAL DES:PAYMENT')).toMatchObject({ id: 'bluevine-lending', kind: 'lender' });
  });

  it('a funder named next to a bank is the funder', () => {
    expect(idOf('ONDECK CAPITAL DES:PAYMENT INDN:ACME CO BANK OF AMERICA')).toBe('ondeck');
  });
});

describe('lender features (categorize)', () => {
  it('a transfer to or from own accounts names no lender and is no loan payment', () => {
    const f = descriptionFeatures('BLUEVINE MCA TRANSFER TO SAVINGS');
    expect([f.lender, f.lenderMatch, f.genericLender, f.debitCategory.category]).toEqual([null, null, false, 'transfer']);
  });

  it('"mca" alone is no lender', () => {
    expect(matchKnownLender('MCA PAYMENT')).toBeNull();
  });

  it('a name that is no funder takes its lender words with it (advance, capital)', () => {
    expect(descriptionFeatures('ADVANCE AUTO PARTS #1234').genericLender).toBe(false);
    expect(descriptionFeatures('ADVANCE AUTO PARTS #1234').debitCategory.category).toBe('operating_expense');
    // the loan word outside the bank's name still counts
    expect(descriptionFeatures('CAPITAL ONE LOAN PMT').genericLender).toBe(true);
  });
});

describe('organization entries', () => {
  it('win over the directory: a new lender, an alias, or "not a lender"', () => {
    const m = new LenderMatcher([
      { id: 7, name: 'Acme Merchant Partners', aliases: ['ACME MP'], kind: 'mca' },
      { id: 8, name: 'Fundbox', aliases: [], kind: 'not_lender' },
    ]);
    expect(m.match('ACME MP ACH DEBIT')).toMatchObject({ id: 'org:7', source: 'organization', is_funder: true });
    expect(m.match('ACME MERCHANT PARTNERS')).toMatchObject({ id: 'org:7' });
    expect(m.match('FUNDBOX INC DEBIT')).toMatchObject({ id: 'org:8', is_funder: false });
    expect(m.match('ONDECK CAPITAL')).toMatchObject({ id: 'ondeck', source: 'directory' });
    // the directory alone is unchanged
    expect(idOf('FUNDBOX INC DEBIT')).toBe('fundbox');
  });

  it('an alias mapped to a directory lender is that lender', () => {
    const m = new LenderMatcher([{ id: 9, name: 'OnDeck servicing', aliases: ['ODK SVCS'], kind: 'lender', directoryId: 'ondeck' }]);
    expect(m.match('ODK SVCS ACH DEBIT')).toMatchObject({ id: 'ondeck', name: 'OnDeck', source: 'organization', is_funder: true });
    expect(descriptionFeatures('ODK SVCS ACH DEBIT', m).counterparty).toBe(descriptionFeatures('ONDECK CAPITAL').counterparty);
  });

  it('reach the features through the matcher (own cache per set of entries)', () => {
    const m = lenderMatcher([{ id: 1, name: 'Blue Harbor Advance', aliases: [], kind: 'mca' }]);
    expect(descriptionFeatures('BLUE HARBOR ADVANCE DEBIT', m).lender).toBe('blue harbor advance');
    expect(descriptionFeatures('BLUE HARBOR ADVANCE DEBIT').lender).toBeNull();
    expect(lenderMatcher([{ id: 1, name: 'Blue Harbor Advance', aliases: [], kind: 'mca' }])).toBe(m);
    expect(m.fingerprint).not.toBe(lenderMatcher().fingerprint);
  });
});

describe('descriptor test set (bench:lenders)', () => {
  const cases = parseDescriptorCases(readFileSync(path.join(__dirname, '../__fixtures__/lender-descriptors.tsv'), 'utf8'));

  it('has at least 150 lines with hard negatives and dev-set lines', () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    expect(cases.filter((c) => c.expected === null).length).toBeGreaterThanOrEqual(50);
    expect(cases.filter((c) => c.source === 'devset').length).toBeGreaterThanOrEqual(20);
    // every expected id is in the directory
    const ids = new Set(lenderDirectory().map((e) => e.id));
    expect(cases.filter((c) => c.expected && !ids.has(c.expected))).toEqual([]);
  });

  it('reaches precision >= 0.98 and recall >= 0.95', () => {
    const s = scoreDescriptorCases(cases);
    expect(s.precision).toBeGreaterThanOrEqual(0.98);
    expect(s.recall).toBeGreaterThanOrEqual(0.95);
  });
});
