import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sdkDir = resolve(__dirname, '..');

interface Figures {
  min_bytes: number;
  gzip_bytes: number;
  budget_gzip_kb: number;
  modules: string[];
}

/**
 * The bundle a browser app gets (`npm run bench:sdk-size`, which prints the figures): a minimal
 * import (LedgerlensCore + DealsResource) keeps only what deals need, and both bundles stay within
 * the script's budgets.
 */
describe('@ledgerlens/sdk bundle size (tree-shaking)', () => {
  let figures: { minimal: Figures; everything: Figures };

  beforeAll(async () => {
    await run('npm', ['run', '-s', 'build'], { cwd: sdkDir });
    // exits 1 above a budget: execFile then rejects, and the test fails
    const { stdout } = await run(process.execPath, [resolve(sdkDir, 'scripts/bundle-size.mjs'), '--json'], { cwd: sdkDir });
    figures = JSON.parse(stdout);
    // the figures in the test log (CI runs this suite)
    for (const [name, f] of Object.entries(figures))
      console.log(`@ledgerlens/sdk ${name}: ${(f.min_bytes / 1024).toFixed(1)} KB min, ${(f.gzip_bytes / 1024).toFixed(1)} KB gzip`);
  }, 180_000);

  it('a minimal import leaves out the other resources and the operation table', () => {
    const resources = figures.minimal.modules.filter((m) => m.startsWith('dist/esm/resources/'));
    // deals.waitUntilReady listens to the event stream
    expect(resources).toEqual(['dist/esm/resources/deals.js', 'dist/esm/resources/events.js']);
    expect(figures.minimal.modules).not.toContain('dist/esm/operations.js');
    expect(figures.minimal.modules).not.toContain('dist/esm/client.js');
    expect(figures.everything.modules).toEqual(expect.arrayContaining(['dist/esm/client.js', 'dist/esm/resources/webhooks.js']));
  });

  it('is within budget, and the minimal import is well below the whole SDK', () => {
    for (const f of [figures.minimal, figures.everything]) expect(f.gzip_bytes).toBeLessThanOrEqual(f.budget_gzip_kb * 1024);
    expect(figures.minimal.min_bytes).toBeLessThan(figures.everything.min_bytes * 0.7);
  });
});
