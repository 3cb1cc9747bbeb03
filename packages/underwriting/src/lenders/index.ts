import directoryData from './directory.json';

/**
 * The lender directory (directory.json, shipped with the package) and the matcher that finds its
 * names in bank-statement descriptions. docs/lenders.md explains the matching and how to add names.
 */

/** What a name is: only `mca` and `lender` are funders (their debits are positions); the rest tell other money apart. */
export const LENDER_KINDS = [
  'mca',
  'lender',
  'bank',
  'fintech_bank',
  'card',
  'processor',
  'payroll',
  'broker',
  'other',
  'not_lender',
] as const;
export type LenderKind = (typeof LENDER_KINDS)[number];
export const FUNDER_KINDS: readonly LenderKind[] = ['mca', 'lender'];
export const isFunderKind = (k: LenderKind): boolean => k === 'mca' || k === 'lender';

export interface DirectoryEntry {
  /** stable slug, e.g. "ondeck" */
  id: string;
  name: string;
  kind: LenderKind;
  /** other names of the company */
  aliases: string[];
  /** forms seen in ACH descriptors (abbreviations, servicer or legal-entity names) */
  descriptors: string[];
}

/** An organization's own entry (API /v1/lenders): it wins over the directory wherever one of its names matches. */
export interface OrgLenderEntry {
  id: string | number;
  name: string;
  aliases: string[];
  kind: LenderKind;
  /** the directory entry these names are more forms of: a match is that lender (its id and name) */
  directoryId?: string | null;
}

export interface LenderMatch {
  /** directory slug, or "org:<id>" for an organization's entry */
  id: string;
  name: string;
  kind: LenderKind;
  source: 'directory' | 'organization';
  /** kind is mca or lender */
  is_funder: boolean;
  /** the matched part of the description (as printed) */
  matched: string;
  /** true when the description holds a cut form of the name (ACH truncation), e.g. "FORA FIN" */
  truncated: boolean;
}

interface DirectoryFile {
  version: string;
  entries: DirectoryEntry[];
}
const DIRECTORY = directoryData as DirectoryFile;

/** Money moved to or from the merchant's own accounts: such a line names no lender ("BLUEVINE TRANSFER TO SAVINGS"). */
export const OWN_ACCOUNT_RE = /\b(from|to) (checking|savings|chk|sav|acct|account)\b|internal|book transfer/i;

/** Version of the shipped directory; it appears in the deal report (lender_positions.directory_version). */
export const LENDER_DIRECTORY_VERSION: string = DIRECTORY.version;

export function lenderDirectory(): readonly DirectoryEntry[] {
  return DIRECTORY.entries;
}

let byId: Map<string, DirectoryEntry> | null = null;
/** A directory entry by its id, or null. */
export function directoryEntry(id: string): DirectoryEntry | null {
  byId ??= new Map(DIRECTORY.entries.map((e) => [e.id, e]));
  return byId.get(id) ?? null;
}

/** Corporate suffixes left out of a name before it is compiled ("ONDECK CAPITAL LLC" = "ONDECK CAPITAL"). */
const SUFFIXES = new Set(['llc', 'inc', 'corp', 'co', 'ltd', 'lp', 'llp', 'na', 'the', 'dba']);

/** A name's words: lower case, letters and digits only, corporate suffixes dropped. */
export function nameWords(name: string): string[] {
  const words = name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
  while (words.length > 1 && SUFFIXES.has(words[words.length - 1])) words.pop();
  while (words.length > 1 && SUFFIXES.has(words[0])) words.shift();
  return words;
}

/** Shortest name (letters and digits) a matcher accepts: shorter ones would match by accident. */
export const MIN_NAME_CHARS = 3;
/** A cut name must keep this many letters ... */
const MIN_CUT_CHARS = 7;
/** ... and reach this many letters into a word after its first. */
const MIN_CUT_INTO_WORD = 3;

interface Target {
  id: string;
  name: string;
  kind: LenderKind;
  source: 'directory' | 'organization';
}

const AMBIGUOUS: Target = { id: '', name: '', kind: 'other', source: 'directory' };

class TrieNode {
  next = new Map<number, TrieNode>();
  /** a whole name ends here */
  full: Target | null = null;
  /** a cut name (ACH truncation) may end here; AMBIGUOUS when two entries share the prefix */
  cut: Target | null = null;
}

/** Character trie over names with their spaces removed, so "ON DECK" and "ONDECK" are one path. */
class Trie {
  readonly root = new TrieNode();
  size = 0;

  add(words: string[], t: Target): void {
    const squashed = words.join('');
    if (squashed.length < MIN_NAME_CHARS) return;
    let node = this.root;
    const minCut = Math.max(MIN_CUT_CHARS, words[0].length + MIN_CUT_INTO_WORD);
    for (let p = 0; p < squashed.length; p++) {
      const c = squashed.charCodeAt(p);
      let n = node.next.get(c);
      if (!n) node.next.set(c, (n = new TrieNode()));
      node = n;
      const consumed = p + 1;
      if (words.length > 1 && consumed >= minCut && consumed < squashed.length) {
        if (node.cut === null) node.cut = t;
        else if (node.cut.id !== t.id) node.cut = AMBIGUOUS;
      }
    }
    // the first entry to claim a name keeps it (the directory has one owner per name)
    if (node.full === null) {
      node.full = t;
      this.size++;
    }
  }
}

/** A description as the matcher reads it: its letters and digits, where each token starts and ends. */
interface Squashed {
  codes: number[];
  /** position in the original text of each code */
  at: number[];
  start: boolean[];
  end: boolean[];
}

function squash(text: string): Squashed {
  const lower = text.toLowerCase();
  const s: Squashed = { codes: [], at: [], start: [], end: [] };
  let prevAlnum = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (alnum) {
      s.codes.push(c);
      s.at.push(i);
      s.start.push(!prevAlnum);
      s.end.push(false);
    } else if (prevAlnum) s.end[s.end.length - 1] = true;
    prevAlnum = alnum;
  }
  if (s.end.length) s.end[s.end.length - 1] = true;
  return s;
}

interface Found {
  t: Target;
  from: number;
  to: number;
  cut: boolean;
}

/**
 * The name found in a description: the longest match starting at a token (whole names before cut
 * ones of the same length), kept apart for funders and other names; a funder wins unless the other
 * name covers it ("CAPITAL ONE" is no "CAPITAL ..." funder) or is longer where both overlap.
 */
function longestIn(trie: Trie, s: Squashed): Found | null {
  let funder: Found | null = null;
  let other: Found | null = null;
  for (let k = 0; k < s.codes.length; k++) {
    if (!s.start[k]) continue;
    let node: TrieNode | undefined = trie.root;
    for (let j = k; j < s.codes.length; j++) {
      node = node.next.get(s.codes[j]);
      if (!node) break;
      if (!s.end[j]) continue;
      if (node.full) {
        const f: Found = { t: node.full, from: k, to: j, cut: false };
        if (isFunderKind(f.t.kind)) funder = better(funder, f);
        else other = better(other, f);
      } else if (node.cut && node.cut !== AMBIGUOUS) {
        const f: Found = { t: node.cut, from: k, to: j, cut: true };
        if (isFunderKind(f.t.kind)) funder = better(funder, f);
        else other = better(other, f);
      }
    }
  }
  if (!funder || !other) return funder ?? other;
  const overlap = funder.from <= other.to && other.from <= funder.to;
  return overlap && length(other) > length(funder) ? other : funder;
}

const length = (f: Found) => f.to - f.from + 1;
/** the longer match; whole before cut at the same length; the earlier on a tie */
function better(a: Found | null, b: Found): Found {
  if (!a) return b;
  if (length(b) !== length(a)) return length(b) > length(a) ? b : a;
  return a.cut && !b.cut ? b : a;
}

function buildDirectoryTrie(): Trie {
  const trie = new Trie();
  for (const e of DIRECTORY.entries) {
    const t: Target = { id: e.id, name: e.name, kind: e.kind, source: 'directory' };
    for (const form of [e.name, ...e.aliases, ...e.descriptors]) trie.add(nameWords(form), t);
  }
  return trie;
}

let directoryTrie: Trie | null = null;

/**
 * Finds lender (and bank, processor, payroll ...) names in descriptions. The organization's
 * entries are looked up first and win; then the directory. Within one source the longest match
 * wins, so "SQUARE CAPITAL" is the funder and "SQUARE INC" the processor.
 */
export class LenderMatcher {
  /** the organization's entries it was built from (empty for the directory alone) */
  readonly organizationEntries: readonly OrgLenderEntry[];
  /** identifies the entries a report was computed with (directory version + organization entries) */
  readonly fingerprint: string;
  private readonly org: Trie | null;
  private readonly directory: Trie;
  /** per-matcher caches used by descriptionFeatures (categorize.ts), and their bounds (smaller for an organization's matcher) */
  readonly caches = { features: new Map<string, unknown>(), exact: new Map<string, unknown>() };
  readonly cacheLimits: { features: number; exact: number };

  constructor(orgEntries: readonly OrgLenderEntry[] = []) {
    this.directory = directoryTrie ??= buildDirectoryTrie();
    this.organizationEntries = orgEntries;
    this.fingerprint = orgFingerprint(orgEntries);
    this.cacheLimits = orgEntries.length ? { features: 10_000, exact: 20_000 } : { features: 50_000, exact: 100_000 };
    if (orgEntries.length) {
      const trie = new Trie();
      for (const e of orgEntries) {
        const d = e.directoryId ? directoryEntry(e.directoryId) : null;
        const t: Target = d
          ? { id: d.id, name: d.name, kind: e.kind, source: 'organization' }
          : { id: `org:${e.id}`, name: e.name, kind: e.kind, source: 'organization' };
        for (const form of [e.name, ...e.aliases]) trie.add(nameWords(form), t);
      }
      this.org = trie;
    } else this.org = null;
  }

  /** The name found in a description (any kind), or null. */
  match(description: string): LenderMatch | null {
    const s = squash(description);
    if (!s.codes.length) return null;
    const found = (this.org && longestIn(this.org, s)) || longestIn(this.directory, s);
    if (!found) return null;
    const { t } = found;
    const from = s.at[found.from];
    const to = s.at[found.to] + 1;
    return {
      id: t.id,
      name: t.name,
      kind: t.kind,
      source: t.source,
      is_funder: isFunderKind(t.kind),
      matched: description.slice(from, to),
      truncated: found.cut,
    };
  }
}

function orgFingerprint(entries: readonly OrgLenderEntry[]): string {
  if (!entries.length) return LENDER_DIRECTORY_VERSION;
  const body = entries
    .map((e) => `${e.id}=${e.kind}>${e.directoryId ?? ''}:${[e.name, ...e.aliases].map((n) => nameWords(n).join(' ')).join('|')}`)
    .sort()
    .join(';');
  // FNV-1a, enough to tell two sets of entries apart in a cache key
  let h = 0x811c9dc5;
  for (let i = 0; i < body.length; i++) {
    h ^= body.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${LENDER_DIRECTORY_VERSION}+org:${entries.length}:${h.toString(16)}`;
}

let defaultMatcher: LenderMatcher | null = null;
const orgMatchers = new Map<string, LenderMatcher>();

/** The matcher for a set of organization entries (the directory alone without them); compiled once per set. */
export function lenderMatcher(orgEntries?: readonly OrgLenderEntry[] | null): LenderMatcher {
  if (!orgEntries || !orgEntries.length) return (defaultMatcher ??= new LenderMatcher());
  const key = orgFingerprint(orgEntries);
  let m = orgMatchers.get(key);
  if (!m) {
    if (orgMatchers.size >= 16) orgMatchers.clear();
    m = new LenderMatcher(orgEntries);
    orgMatchers.set(key, m);
  }
  return m;
}

/** The name in a description with the directory alone (see LenderMatcher.match). */
export function matchLender(description: string, orgEntries?: readonly OrgLenderEntry[] | null): LenderMatch | null {
  return lenderMatcher(orgEntries).match(description);
}

/** One line of a descriptor test set: the expected funder's directory id, or null for none. */
export interface DescriptorCase {
  description: string;
  expected: string | null;
  source?: string;
}

export interface DescriptorScore {
  cases: number;
  true_positives: number;
  false_positives: number;
  false_negatives: number;
  /** true positives / funders found (1 when none was found) */
  precision: number;
  /** true positives / funders expected (1 when none was expected) */
  recall: number;
  /** the lines not matched as expected */
  errors: { description: string; expected: string | null; found: string | null }[];
}

/**
 * Precision and recall of funder identification over a descriptor test set: a funder found with
 * the expected id is a true positive; a funder found where none (or another) was expected a false
 * positive; an expected funder not found (or another found) a false negative. The transfer rule
 * applies (as in the deal analysis).
 */
export function scoreDescriptorCases(cases: readonly DescriptorCase[], matcher: LenderMatcher = lenderMatcher()): DescriptorScore {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const errors: DescriptorScore['errors'] = [];
  for (const c of cases) {
    const m = matcher.match(c.description);
    const own = OWN_ACCOUNT_RE.test(c.description);
    const found = m && m.is_funder && !own ? m.id : null;
    if (found !== null && found === c.expected) tp++;
    else {
      if (found !== null) fp++;
      if (c.expected !== null) fn++;
      if (found !== c.expected) errors.push({ description: c.description, expected: c.expected, found });
    }
  }
  return {
    cases: cases.length,
    true_positives: tp,
    false_positives: fp,
    false_negatives: fn,
    precision: tp + fp ? tp / (tp + fp) : 1,
    recall: tp + fn ? tp / (tp + fn) : 1,
    errors,
  };
}

/** Parses a descriptor test set (tab-separated: description, expected id or "none", source; # comments). */
export function parseDescriptorCases(text: string): DescriptorCase[] {
  const out: DescriptorCase[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [description, expected, source] = line.split('\t');
    if (!description || !expected) throw new Error(`descriptor line without an expected match: ${line}`);
    out.push({ description, expected: expected.trim() === 'none' ? null : expected.trim(), source: source?.trim() });
  }
  return out;
}
