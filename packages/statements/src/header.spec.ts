/**
 * Header fields by label and geometry (issue 19): one table per label family. Pages are laid out from
 * positioned text (the words go through the same line grouping as a PDF's text layer).
 */
import { groupLines } from './extract';
import { readCurrency } from './currency';
import { lowConfidenceWarnings, readHeader } from './header';
import { PageLayout, Word } from './types';

interface T {
  x: number;
  y: number;
  text: string;
  size?: number;
}

/** Words of positioned text: Helvetica-like advance of ~0.5 em per character. */
function page(items: T[], index = 0): PageLayout {
  const words: Word[] = [];
  for (const t of items) {
    const size = t.size ?? 9;
    let x = t.x;
    for (const part of t.text.split(/( +)/)) {
      const w = part.length * size * 0.5;
      if (part.trim()) words.push({ text: part, x0: x, x1: x + w, y0: t.y - size, y1: t.y, base: t.y, size, font: 'Helvetica' });
      x += w;
    }
  }
  return { index, width: 612, height: 792, lines: groupLines(words), method: 'text', confidence: 1, imageRects: [] };
}

/** Lines stacked at x=40 from y=40, 13 pt apart (the first one larger: a logo). */
const stack = (lines: string[], x = 40, y = 40): T[] => lines.map((text, i) => ({ x, y: y + i * 13, text, size: i === 0 ? 15 : 9 }));
const table: T[] = [
  { x: 40, y: 400, text: 'Date' },
  { x: 100, y: 400, text: 'Description' },
  { x: 400, y: 400, text: 'Amount' },
  { x: 40, y: 414, text: '01/05' },
  { x: 100, y: 414, text: 'Card Purchase Online Transfer To Savings XXXXXX9999' },
  { x: 400, y: 414, text: '-12.00' },
];
/** the header area ends at the first table's header line ("Date Description Amount"), as the parser finds it */
const read = (items: T[]) => {
  const p = page([...items, ...table]);
  const line = p.lines.findIndex((l) => l.text.startsWith('Date Description'));
  return readHeader([p], { firstTable: { page: 0, line } });
};

describe('account number: the digits beside their label, never digits elsewhere', () => {
  it.each<[string, T[], string | null, string]>([
    [
      'holder with digits, masked number',
      [
        ...stack(['Harbor Bank', 'ACME 2066 BAKERY LLC', '17 Mill Road', 'Springfield, IL 62701']),
        { x: 330, y: 40, text: 'Account Number: XXXXXX1234' },
      ],
      '1234',
      'Account Number',
    ],
    ['Account No.', stack(['Harbor Bank', 'Account No. 0012345678']), '5678', 'Account No.'],
    ['Acct # with stars', stack(['Harbor Bank', 'Acct # ****1234']), '1234', 'Acct #'],
    ['Primary Account', stack(['Harbor Bank', 'Primary Account: 9876543210']), '3210', 'Primary Account'],
    ['account ending in', stack(['Harbor Bank', 'Business Checking account ending in 4321']), '4321', 'account ending in'],
    ['NZ format', stack(['Kauri Bank', 'Account number 01-2345-0678901-00']), '0100', 'Account number'],
    ['spaced groups', stack(['Harbor Bank', 'Account number: 1234 5678 9123 4567']), '4567', 'Account number'],
    [
      'value under its label, in its column',
      [
        ...stack(['Harbor Bank', 'Account Type']),
        { x: 300, y: 53, text: 'Account Number' },
        { x: 480, y: 53, text: 'Ending Balance' },
        { x: 40, y: 66, text: 'HOWARD RELATIONSHIP CHECKING' },
        { x: 304, y: 66, text: 'XXXXXXXX4101' },
        { x: 490, y: 66, text: '$5,684.22' },
      ],
      '4101',
      'Account Number (value below)',
    ],
    ['masked number alone', stack(['Harbor Bank', 'BUSINESS CHECKING ...1234']), '1234', 'masked number without a label'],
    ['a phone number is not an account', stack(['Harbor Bank', 'Account questions? Call 1-800-555-1234']), null, ''],
    ['an unlabelled plain number is not an account', stack(['Harbor Bank', 'ACME 2066 BAKERY LLC', 'Ref 20661234']), null, ''],
  ])('%s', (_name, items, last4, via) => {
    const h = read(items);
    expect(h.accountNumberLast4).toBe(last4);
    if (last4) expect(h.sources.accountNumberLast4?.via).toBe(via);
  });

  it('a card number in a transaction description is not the account', () => {
    expect(read(stack(['Harbor Bank'])).accountNumberLast4).toBeNull();
  });
});

describe('account holder: the name in the mailing block or beside its label, never a heading', () => {
  const block = (name: string) => [
    { x: 40, y: 100, text: name, size: 10 },
    { x: 40, y: 113, text: '123 Main Street', size: 10 },
    { x: 40, y: 126, text: 'Springfield, IL 62701', size: 10 },
  ];
  it.each<[string, T[], string | null, string]>([
    [
      'service heading beside the address block',
      [
        ...stack(['Harbor Bank']),
        ...block('JOHN Q SAMPLE'),
        { x: 330, y: 100, text: 'CUSTOMER SERVICE INFORMATION' },
        { x: 330, y: 113, text: 'Call 1-800-555-0100' },
      ],
      'JOHN Q SAMPLE',
      'mailing block',
    ],
    [
      'service heading in the address column above the name',
      [...stack(['Harbor Bank']), { x: 40, y: 88, text: 'SERVICE INFORMATION', size: 10 }, ...block('JANE DOE')],
      'JANE DOE',
      'mailing block',
    ],
    ['holder with digits', [...stack(['Harbor Bank']), ...block('ACME 2066 BAKERY LLC')], 'ACME 2066 BAKERY LLC', 'mailing block'],
    [
      'street word in a business name',
      [...stack(['Harbor Bank']), ...block('Maple Street Cafe LLC')],
      'Maple Street Cafe LLC',
      'mailing block',
    ],
    ['Account Holder label', stack(['Harbor Bank', 'Account Holder: Blue Fox Coffee LLC']), 'Blue Fox Coffee LLC', 'Account Holder'],
    ['Primary Account Holder', stack(['Harbor Bank', 'Primary Account Holder: Alice Johnson']), 'Alice Johnson', 'Primary Account Holder'],
    [
      'value below "Prepared for"',
      [...stack(['Harbor Bank', 'Prepared for']), { x: 40, y: 66, text: 'Northside Auto Repair LLC' }],
      'Northside Auto Repair LLC',
      'Prepared for (value below)',
    ],
    [
      '"Account name" naming the product is not the holder',
      [...stack(['Kowhai Bank NZ', 'Account name Everyday account']), ...block('JAMIE SAMPLE')],
      'JAMIE SAMPLE',
      'mailing block',
    ],
    [
      'balances in a column are not a name',
      stack(['Gravy Bank', 'Opening balance: $50,000.00 CR', 'Account number: 1234 5678 9123 4567']),
      null,
      '',
    ],
  ])('%s', (_name, items, holder, via) => {
    const h = read(items);
    expect(h.accountHolder).toBe(holder);
    if (holder) expect(h.sources.accountHolder?.via).toBe(via);
  });
});

describe('bank name: logo text, legal-name lines, URL domains', () => {
  it.each<[string, T[], string | null, string, number]>([
    ['logo text', stack(['Riverbend Community Bank', 'Statement of Account']), 'Riverbend Community Bank', 'logo text', 0.85],
    ['group with a bank word', stack(['Fidelity Federal Banking Group', 'Statement']), 'Fidelity Federal Banking Group', 'logo text', 0.85],
    [
      'legal line, confirmed by the domain',
      [
        { x: 40, y: 40, text: 'BBVA USA (formerly BBVA Compass) is a bank headquartered in Birmingham, Alabama.', size: 7 },
        { x: 40, y: 50, text: 'Website: www.bbva.com', size: 7 },
      ],
      'BBVA USA',
      'legal name line',
      0.95,
    ],
    [
      'Member FDIC line',
      [{ x: 40, y: 40, text: 'Harbor Point Bank, N.A. Member FDIC', size: 7 }],
      'Harbor Point Bank, N.A.',
      'legal name line',
      0.8,
    ],
    [
      'domain only, name printed elsewhere',
      [
        { x: 40, y: 40, text: 'Online Banking', size: 9 },
        { x: 200, y: 40, text: 'HowardBank.com', size: 9 },
        { x: 40, y: 60, text: 'HOWARD RELATIONSHIP CHECKING', size: 9 },
      ],
      'Howard Bank',
      'URL domain, name printed elsewhere',
      0.75,
    ],
    ['domain only', [{ x: 200, y: 40, text: 'Visit KauriBank.co.nz', size: 9 }], 'Kauri Bank', 'URL domain', 0.6],
    ['generic banking words are not a bank', [{ x: 40, y: 40, text: 'Online Banking', size: 12 }], null, '', 0],
    [
      'OCR specks beside a logo are not part of the name',
      [{ x: 15, y: 54, text: '¢@X First Security Bank', size: 15 }],
      'First Security Bank',
      'logo text',
      0.85,
    ],
    ['generic charter words alone are not a bank', [{ x: 40, y: 40, text: 'FEDERAL', size: 15 }], null, '', 0],
    [
      'a logo set one word a line is read as one name',
      [
        { x: 40, y: 40, text: 'USAA', size: 12 },
        { x: 40, y: 52, text: 'FEDERAL', size: 12 },
        { x: 40, y: 64, text: 'SAVINGS', size: 12 },
        { x: 40, y: 76, text: 'BANK', size: 12 },
      ],
      'USAA FEDERAL SAVINGS BANK',
      'logo text',
      0.85,
    ],
    [
      "a heading in the reader's voice is the product, the N.A. line below it the bank",
      [
        { x: 40, y: 40, text: 'Your Adv Plus Banking', size: 16 },
        { x: 40, y: 60, text: 'Bank of Harborview, N.A.', size: 8 },
        { x: 300, y: 60, text: 'harborview.com', size: 8 },
      ],
      'Bank of Harborview, N.A.',
      'logo text',
      0.95,
    ],
    [
      'product name first: the brand it starts with, with a low confidence',
      [{ x: 40, y: 40, text: 'RIVERBEND BUSINESS CHECKING : ACCOUNT NO. 63', size: 9 }],
      'RIVERBEND',
      'brand in the product name',
      0.5,
    ],
    ['a product name of descriptors names no brand', [{ x: 40, y: 40, text: 'ANALYZED BUSINESS CHECKING', size: 9 }], null, '', 0],
  ])('%s', (_name, items, bank, via, confidence) => {
    const h = read(items);
    expect(h.bankName).toBe(bank);
    if (bank) expect(h.sources.bankName).toMatchObject({ via, confidence });
  });
});

describe('bank name on a later page', () => {
  it('the charter line in the small print of the last page names the bank when the first page does not', () => {
    const p2 = page(
      [{ x: 40, y: 700, text: 'Banking services provided by Coastal Ridge Bank, Member FDIC. This card is issued by Coastal', size: 6 }],
      1,
    );
    const h = readHeader([page(stack(['Account statement', 'Statement Period: 09/01/2024 - 09/30/2024'])), p2], {});
    expect(h.bankName).toBe('Coastal Ridge Bank');
    expect(h.sources.bankName).toMatchObject({ page: 2, via: 'legal name line', confidence: 0.8 });
    // the box covers the line it was read from, in PDF points from the top-left
    const [x0, y0, x1, y1] = h.sources.bankName!.boxes![0];
    expect(x0).toBeCloseTo(40, 0);
    expect(y1).toBeCloseTo(700, 0);
    expect(y0).toBeLessThan(y1);
    expect(x1).toBeGreaterThan(200);
  });
});

describe('account type', () => {
  it.each<[string, T[], string | null]>([
    [
      'label, value below',
      [...stack(['Harbor Bank', 'Account Type']), { x: 40, y: 66, text: 'HOWARD RELATIONSHIP CHECKING' }],
      'HOWARD RELATIONSHIP CHECKING',
    ],
    ['product label', stack(['Harbor Bank', 'Product: Everyday Account']), 'Everyday Account'],
    ['type words', stack(['Harbor Bank', 'Small Business Checking']), 'Small Business Checking'],
    ['a transaction row does not name the type', stack(['Harbor Bank']), null],
  ])('%s', (_name, items, type) => {
    expect(read(items).accountType).toBe(type);
  });
});

describe('currency: ISO code, symbol, words; country marks only with a low confidence', () => {
  it.each<[string, string[], string | null, number]>([
    ['Currency label', ['Harbor Bank', 'Currency: NZD'], 'NZD', 0.98],
    ['ISO code', ['All amounts in GBP', 'Balance 100.00'], 'GBP', 0.95],
    ['prefixed dollar', ['Opening balance NZ$1,250.00'], 'NZD', 0.95],
    ['currency in words', ['Amounts are in New Zealand dollars'], 'NZD', 0.95],
    ['pound sign', ['Closing balance £2,424.50'], 'GBP', 0.9],
    ['account number format', ['Account number 12-3456-0123456-00', 'Opening balance $875.20'], 'NZD', 0.75],
    ["country in the bank's name", ['Kauri Bank New Zealand', 'Opening balance $2,410.55'], 'NZD', 0.75],
    ["country in the bank's legal name", ['BBVA USA is a bank headquartered in Birmingham', 'Balance $1,000.00'], 'USD', 0.75],
    ["FDIC membership: the bank's country, a default", ['Harbor Bank, Member FDIC', 'Beginning Balance $1,000.00'], 'USD', 0.7],
    ["a national association: the bank's country, a default", ['Bank of Harborview, N.A.', 'Beginning Balance $1,000.00'], 'USD', 0.7],
    ['a US address only suggests', ['John Doe', 'Baltimore, MD 21224', 'Beginning Balance $1,000.00'], 'USD', 0.5],
    ['a bare dollar names none', ['Beginning Balance $1,000.00'], null, 0],
  ])('%s', (_name, lines, code, confidence) => {
    const r = readCurrency(lines);
    expect(r?.code ?? null).toBe(code);
    if (code) expect(r?.confidence).toBe(confidence);
  });

  it("the bank's charter gives the default currency, marked as such", () => {
    const h = read(stack(['Harbor Bank', 'Member FDIC', 'Beginning Balance $1,000.00']));
    expect(h.currency).toBe('USD');
    expect(h.currencyFrom).toBe('bank_country');
    expect(h.sources.currency).toMatchObject({ line: 2, confidence: 0.7 });
    // a charter is firm evidence for the account's currency: no low-confidence warning for it
    expect(lowConfidenceWarnings({ currency: h.currency }, h.sources)).toEqual([]);
    expect(h.sources.currency?.via).toMatch(/^default for the bank's country/);
    expect(read(stack(['Harbor Bank', 'Closing balance £2,424.50'])).currencyFrom).toBe('printed');
  });

  it('a suggestion is not the currency: the currency declared at upload applies', () => {
    const h = read(stack(['Harbor Bank', 'JOHN DOE', 'Baltimore, MD 21224', 'Beginning Balance $1,000.00']));
    expect(h.currency).toBeNull();
    expect(h.sources.currency).toBeUndefined();
  });

  it('carries the line it was read from', () => {
    const h = read(stack(['Harbor Bank', 'Statement of Account', 'Closing balance £2,424.50']));
    expect(h.currency).toBe('GBP');
    expect(h.sources.currency).toMatchObject({ page: 1, line: 3, via: '£ amounts' });
  });
});

describe('statement period', () => {
  it.each<[string, T[], string, string, number]>([
    ['labelled range', stack(['Harbor Bank', 'Statement Period: 12/20/2025 - 01/19/2026']), '2025-12-20', '2026-01-19', 2],
    ['label above the range', stack(['Harbor Bank', 'Statement period', '1 Jul 2023 - 31 Jul 2023']), '2023-07-01', '2023-07-31', 3],
    ['through', stack(['Harbor Bank', 'October 01, 2019, through November 30, 2019']), '2019-10-01', '2019-11-30', 2],
  ])('%s', (_name, items, start, end, line) => {
    const h = read(items);
    expect([h.periodStart, h.periodEnd]).toEqual([start, end]);
    expect(h.sources.periodStart?.line).toBe(line);
    expect(h.sources.periodEnd?.page).toBe(1);
  });
});

describe('opening and closing balances', () => {
  it.each<[string, T[], number | null, number | null]>([
    ['Beginning/Ending Balance', stack(['Harbor Bank', 'Beginning Balance $1,000.00', 'Ending Balance $1,625.25']), 1000, 1625.25],
    [
      'Opening/Closing balance',
      stack(['Harbor Bank', 'Opening balance: $50,000.00 CR', 'Closing balance: $11,663.82 CR']),
      50000,
      11663.82,
    ],
    ['Previous/New balance', stack(['Harbor Bank', 'Previous balance 2,000.00', 'New balance 1,500.00']), 2000, 1500],
    ['overdrawn closing', stack(['Harbor Bank', 'Opening balance 100.00', 'Closing balance 16,144.58 DR']), 100, -16144.58],
    ['amount a column further', stack(['Harbor Bank', 'Beginning balance on November 1, 2025          $87,704.35']), 87704.35, null],
    [
      'values under their labels',
      [
        ...stack(['Harbor Bank']),
        { x: 40, y: 60, text: 'Beginning Balance' },
        { x: 200, y: 60, text: 'Ending Balance' },
        { x: 40, y: 73, text: '$1,000.00' },
        { x: 200, y: 73, text: '$1,625.25' },
      ],
      1000,
      1625.25,
    ],
    [
      'other balances are not the statement balances',
      stack(['Harbor Bank', 'Average Daily Balance 5,000.00', 'Ending daily balance 4,000.00']),
      null,
      null,
    ],
  ])('%s', (_name, items, opening, closing) => {
    const h = read(items);
    expect([h.openingBalance, h.closingBalance]).toEqual([opening, closing]);
    if (opening !== null) expect(h.sources.openingBalance?.page).toBe(1);
  });

  it('Balance brought forward opens, the last Balance carried forward closes', () => {
    const p2 = page(
      [
        { x: 40, y: 40, text: 'Balance brought forward 1,200.00' },
        { x: 40, y: 60, text: 'Balance carried forward 900.00' },
      ],
      1,
    );
    const p3 = page(
      [
        { x: 40, y: 40, text: 'Balance brought forward 900.00' },
        { x: 40, y: 60, text: 'Balance carried forward 750.00' },
      ],
      2,
    );
    const h = readHeader([page(stack(['Harbor Bank', 'Balance brought forward 1,000.00'])), p2, p3], {});
    expect([h.openingBalance, h.closingBalance]).toEqual([1000, 750]);
    expect(h.sources.closingBalance).toMatchObject({ page: 3, line: 2, via: 'Balance carried forward' });
  });
});

describe('confidence', () => {
  it('a low-confidence value is a warning naming the field, the value and where it was read', () => {
    const h = read([{ x: 200, y: 40, text: 'Visit KauriBank.co.nz', size: 9 }]);
    const ws = lowConfidenceWarnings({ bankName: h.bankName }, h.sources);
    expect(ws).toEqual([
      'low confidence (0.60) in bank_name "Kauri Bank": read from URL domain on page 1, line 1 ("Visit KauriBank.co.nz"); check it',
    ]);
  });

  it('values read beside their labels carry no warning', () => {
    const h = read(stack(['Harbor Bank', 'Account Number: 0000123456789', 'Opening balance 100.00']));
    expect(lowConfidenceWarnings(h, h.sources)).toEqual([]);
  });
});
