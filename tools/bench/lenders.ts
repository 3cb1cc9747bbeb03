/**
 * Benchmark: lender name matching on the descriptor test set
 * (packages/underwriting/src/__fixtures__/lender-descriptors.tsv: descriptor lines written from the
 * shapes banks print and from the dev set's descriptions, each with the expected funder or none).
 * Prints precision and recall of funder identification (per source too) and the lines not matched
 * as expected, then times the matcher on 50,000 distinct descriptions (cold: no cache).
 * Exits 1 below the targets: precision >= 0.98, recall >= 0.95, and above 10 us of CPU time per description.
 *   npm run bench:lenders
 */
import { readFileSync } from 'fs';
import * as path from 'path';
import {
  LenderMatcher,
  LENDER_DIRECTORY_VERSION,
  lenderDirectory,
  parseDescriptorCases,
  scoreDescriptorCases,
} from '@ledgerlens/underwriting';

const MIN_PRECISION = 0.98;
const MIN_RECALL = 0.95;
const MAX_US_PER_DESCRIPTION = 10;
const TIMED = 50_000;

const file = path.resolve(__dirname, '../../../packages/underwriting/src/__fixtures__/lender-descriptors.tsv');
const cases = parseDescriptorCases(readFileSync(file, 'utf8'));
const all = scoreDescriptorCases(cases);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const funders = lenderDirectory().filter((e) => e.kind === 'mca' || e.kind === 'lender').length;
console.log(`directory ${LENDER_DIRECTORY_VERSION}: ${lenderDirectory().length} entries, ${funders} funders`);
console.log(
  `descriptor set: ${cases.length} lines (${cases.filter((c) => c.expected).length} funder lines, ${cases.filter((c) => !c.expected).length} none)`,
);
for (const source of [...new Set(cases.map((c) => c.source ?? ''))]) {
  const s = scoreDescriptorCases(cases.filter((c) => (c.source ?? '') === source));
  console.log(
    `  ${source.padEnd(14)} ${String(s.cases).padStart(4)} lines  P ${pct(s.precision).padStart(6)}  R ${pct(s.recall).padStart(6)}`,
  );
}
console.log(`precision ${pct(all.precision)} (target >= ${pct(MIN_PRECISION)}), recall ${pct(all.recall)} (target >= ${pct(MIN_RECALL)})`);
for (const e of all.errors) console.log(`  miss: "${e.description}" expected ${e.expected ?? 'none'}, found ${e.found ?? 'none'}`);

// timing: distinct descriptions (reference numbers vary), a fresh matcher, no cache in the way
const descriptions: string[] = [];
for (let i = 0; i < TIMED; i++) descriptions.push(`${cases[i % cases.length].description} ${100000 + i}`);
const matcher = new LenderMatcher();
for (let i = 0; i < 5000; i++) matcher.match(`${descriptions[i]} warm`);
let found = 0;
// CPU time, not wall time: the machine may be shared
const t0 = process.cpuUsage();
const w0 = process.hrtime.bigint();
for (const d of descriptions) if (matcher.match(d)) found++;
const cpu = process.cpuUsage(t0);
const us = (cpu.user + cpu.system) / TIMED;
const wall = Number(process.hrtime.bigint() - w0) / 1000 / TIMED;
console.log(
  `matching: ${us.toFixed(2)} us CPU (${wall.toFixed(2)} us wall) per description over ${TIMED} (${found} with a name), target <= ${MAX_US_PER_DESCRIPTION} us`,
);

const ok = all.precision >= MIN_PRECISION && all.recall >= MIN_RECALL && us <= MAX_US_PER_DESCRIPTION;
if (!ok) {
  console.error('FAIL: below target');
  process.exit(1);
}
