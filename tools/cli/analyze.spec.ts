import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { LAYOUTS } from '../corpus/layouts';
import { makeStatement } from '../corpus/corpus';
import { runAnalyze } from './analyze';

const round2 = (n: number) => Math.round(n * 100) / 100;

describe('statements analyze', () => {
  let dir: string;
  let out: string[];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'll-analyze-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    out = [];
    jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
      out.push(String(s));
      return true;
    });
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('parses the files and prints categories, metrics, positions, findings, health and the default recommendation', async () => {
    const items = [await makeStatement(LAYOUTS[3], 31, 25), await makeStatement(LAYOUTS[2], 32, 20)];
    const files = items.map((item, i) => {
      const file = path.join(dir, `s${i}.pdf`);
      fs.writeFileSync(file, item.bytes);
      return file;
    });
    expect(await runAnalyze([...files, '--funding', '50000', '--json'])).toBe(0);
    const json = JSON.parse(out.join(''));
    expect(json.analysis.coverage.statement_count).toBe(2);
    const credits = round2(
      items
        .flatMap((i) => i.truth.transactions!)
        .filter((t) => t.amount > 0)
        .reduce((s, t) => s + t.amount, 0),
    );
    expect(json.analysis.financials.total_deposits).toBeCloseTo(credits, 2);
    expect(json.analysis.transactions).toHaveLength(45);
    for (const t of json.analysis.transactions) {
      expect(['revenue', 'non_revenue', 'debt_service', 'operating_expense', 'transfer', 'other']).toContain(t.category);
      expect(t).toHaveProperty('screening_bucket');
    }
    expect(json.analysis).toHaveProperty('lender_positions');
    expect(json.analysis).toHaveProperty('cross_doc');
    expect(json.analysis.health.score).toBeGreaterThanOrEqual(0);
    expect(json.recommendation.decision).toMatch(/^(approve|review|decline)$/);
    expect(Object.keys(json.recommendation.factor_scores)).toHaveLength(9);
  });

  it('fails clearly on an unreadable file and on a missing --funding', async () => {
    const bad = path.join(dir, 'bad.pdf');
    fs.writeFileSync(bad, 'not a pdf');
    expect(await runAnalyze([bad, '--funding', '1000', '--json'])).toBe(2);
    expect(JSON.parse(out.join('')).error.code).toEqual(expect.any(String));
    expect(await runAnalyze([bad])).not.toBe(0);
  });
});
