/**
 * The statement's currency from its text, strongest evidence first: a "Currency" label, an ISO code
 * printed as such or a prefixed dollar (NZ$, A$, US$), the currency named in words ("New Zealand
 * dollars", "pounds sterling"), a currency symbol (£ € ₹), then country marks. A bare "$" does not say
 * which dollar: banking marks (a New Zealand account number format, an Australian BSB, a UK sort code)
 * or the country in the bank's own name read it; the bank's charter (FDIC membership, "N.A.") gives its
 * country's currency as a default (kind bank_country: a currency declared at upload wins over it); an
 * address elsewhere only suggests it (confidence 0.5), which is not reported as the currency.
 */
const ISO = ['USD', 'GBP', 'EUR', 'AUD', 'NZD', 'CAD', 'INR', 'ZAR', 'SGD', 'HKD', 'CHF', 'JPY'];
const ISO_RE = new RegExp(`\\b(${ISO.join('|')})\\b`, 'g');
const PREFIXED: Record<string, string> = { NZ: 'NZD', A: 'AUD', AU: 'AUD', C: 'CAD', CA: 'CAD', US: 'USD', HK: 'HKD', S: 'SGD' };
const WORDS: Array<[RegExp, string]> = [
  [/\b(new zealand|nz) dollars?\b/i, 'NZD'],
  [/\baustralian dollars?\b/i, 'AUD'],
  [/\bcanadian dollars?\b/i, 'CAD'],
  [/\b(us|u\.s\.|united states) dollars?\b/i, 'USD'],
  [/\b(pounds? sterling|british pounds?)\b/i, 'GBP'],
  [/\beuros?\b/i, 'EUR'],
  [/\b(indian )?rupees?\b/i, 'INR'],
  [/\brand\b(?= ?\d)|\bsouth african rand\b/i, 'ZAR'],
];
const US_STATES =
  'AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY';
/**
 * Country marks for a bare "$" or unmarked amounts. Banking marks (an account number format, a BSB, a
 * sort code, an Indian payment rail) and the country in the bank's own name ("Kauri Bank New Zealand",
 * "BBVA USA") say whose currency it is; an address or membership elsewhere (a US state and ZIP code,
 * "Member FDIC", a country word) only suggests it.
 */
const BANKING_MARKS: Array<[RegExp, string, string]> = [
  // NZ account numbers print as bank-branch-account-suffix (01-2345-0678901-00)
  [/\b\d{2}-\d{4}-\d{7}-\d{2,3}\b|\bIRD\b/, 'NZD', 'New Zealand account number format'],
  [/\bBSB\b|\bABN\b/, 'AUD', 'Australian BSB/ABN'],
  [/\bTransit\b.*\bInstitution\b/, 'CAD', 'Canadian transit and institution numbers'],
  [/\bsort code\b/i, 'GBP', 'UK sort code'],
  [/\bIFSC\b|\bNEFT\b|\bUPI\b|\bIMPS\b/, 'INR', 'Indian payment marks'],
];
const BANK_WORD = /\b(bank|banking|credit union|building society|savings|trust)\b/i;
const COUNTRIES: Array<[RegExp, string, string]> = [
  [/\bNew Zealand\b|\bNZ\b/, 'NZD', 'New Zealand'],
  [/\bAustralia\b/, 'AUD', 'Australia'],
  [/\bCanada\b/, 'CAD', 'Canada'],
  [/\bUSA\b|\bUnited States\b|\bU\.S\.A?\.?\b/, 'USD', 'USA'],
  [/\bUnited Kingdom\b|\bUK\b/, 'GBP', 'United Kingdom'],
  [/\bIndia\b/, 'INR', 'India'],
];
/**
 * The bank's own charter says its country, so its currency is the account's unless the statement
 * prints another: FDIC or NCUA membership, a national association ("Bank, N.A."), a federal savings bank.
 */
const BANK_CHARTERS: Array<[RegExp, string, string]> = [
  [
    /\bMember\s+(?:FDIC|NCUA)\b|\bFDIC[- ]insured\b|\bFederal\s+Savings\s+Bank\b/i,
    'USD',
    "a US bank's charter (FDIC or NCUA membership, federal savings bank)",
  ],
  // a national association: "Bank of America, N.A.", "Wells Fargo Bank, N.A."
  [/\b[A-Z][A-Za-z&]+,?\s+N\.\s?A\.(?!\w)/, 'USD', "a US national bank's name (N.A.)"],
];
const SUGGESTIONS: Array<[RegExp, string, string]> = [
  ...COUNTRIES,
  [
    new RegExp(
      `\\bFDIC\\b|,\\s*(?:${US_STATES})\\s+\\d{5}(?:-\\d{4})?\\b|\\b(?:Alabama|Alaska|Arizona|California|Florida|Georgia|Maryland|Texas|New York)\\b`,
    ),
    'USD',
    'US address or FDIC membership',
  ],
];

export interface CurrencyReading {
  code: string;
  /** printed on the statement; the default for the bank's country (its charter); or only suggested (an address) */
  kind: 'printed' | 'bank_country' | 'suggestion';
  /** index of the line holding the deciding evidence */
  line: number;
  via: string;
  text: string;
  confidence: number;
}

/** Reads the currency from the document's lines (top of the document first), with where it was read. */
export function readCurrency(lines: string[]): CurrencyReading | null {
  // one text, and where each line starts in it (matches are mapped back to their line)
  const starts: number[] = [];
  let text = '';
  for (const l of lines) {
    if (text.length > 60_000) break;
    starts.push(text.length);
    text += `${l}\n`;
  }
  const lineAt = (pos: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const at = (i: number, code: string, via: string, confidence: number, kind: CurrencyReading['kind'] = 'printed'): CurrencyReading => ({
    code,
    kind,
    line: i,
    via,
    text: lines[i].trim().slice(0, 120),
    confidence,
  });
  // a label names it
  for (const m of text.matchAll(/\bcurrency\b[ \t]*(?:code)?[ \t]*[:-]?[ \t]*([A-Z]{3})\b/gi))
    if (ISO.includes(m[1].toUpperCase())) return at(lineAt(m.index!), m[1].toUpperCase(), 'Currency label', 0.98);
  // codes and prefixed dollars, counted (amount columns repeat them); the first occurrence is the source
  const counts = new Map<string, { n: number; first: number; via: string }>();
  const add = (code: string, pos: number, n: number, via: string) => {
    const c = counts.get(code);
    if (c) {
      c.n += n;
      if (pos < c.first) c.first = pos;
    } else counts.set(code, { n, first: pos, via });
  };
  for (const m of text.matchAll(ISO_RE)) add(m[1], m.index!, 3, 'ISO code');
  for (const m of text.matchAll(/\b(NZ|A|AU|C|CA|US|HK|S)\$/g)) add(PREFIXED[m[1]], m.index!, 3, `${m[1]}$ amounts`);
  for (const [re, code] of WORDS) {
    const m = re.exec(text);
    if (m) add(code, m.index, 3, 'currency named in words');
  }
  for (const m of text.matchAll(/£|€|₹|\bRs\.?\s?\d/g))
    add(m[0] === '£' ? 'GBP' : m[0] === '€' ? 'EUR' : 'INR', m.index!, 2, `${m[0].startsWith('Rs') ? 'Rs' : m[0]} amounts`);
  if (counts.size) {
    const [code, c] = [...counts].sort((a, b) => b[1].n - a[1].n || ISO.indexOf(a[0]) - ISO.indexOf(b[0]))[0];
    return at(lineAt(c.first), code, c.via, /ISO|\$ amounts|words/.test(c.via) ? 0.95 : 0.9);
  }
  // country marks: the dollar (or the unmarked amounts) is read as that country's
  for (const [re, code, via] of BANKING_MARKS) {
    const m = re.exec(text);
    if (m) return at(lineAt(m.index), code, via, 0.75);
  }
  for (const [re, code, via] of COUNTRIES) {
    if (!re.test(text)) continue;
    const i = lines.findIndex((l, k) => k < starts.length && re.test(l) && BANK_WORD.test(l));
    if (i >= 0) return at(i, code, `${via} in the bank's name`, 0.75);
  }
  // the bank's charter names its country: the account's currency by default (below a printed one)
  for (const [re, code, via] of BANK_CHARTERS) {
    const m = re.exec(text);
    if (m) return at(lineAt(m.index), code, via, BANK_COUNTRY_DEFAULT, 'bank_country');
  }
  // an address or a country word elsewhere only suggests it: below the confidence at which a currency is reported
  for (const [re, code, via] of SUGGESTIONS) {
    const m = re.exec(text);
    if (m) return at(lineAt(m.index), code, via, 0.5, 'suggestion');
  }
  return null;
}

/** Below this a reading is only a suggestion: not reported as the statement's currency. */
export const CURRENCY_SUGGESTION = 0.7;
/** A reading from the bank's country (its charter): the statement's currency unless the upload declared one. */
export const BANK_COUNTRY_DEFAULT = 0.7;

/** The ISO 4217 code the statement's text prints; null when it prints none (a charter's default and a suggestion are not printed). */
export function detectCurrency(text: string): string | null {
  const r = readCurrency(text.split('\n'));
  return r && r.kind === 'printed' && r.confidence >= CURRENCY_SUGGESTION ? r.code : null;
}
