import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { formatSummary, OpenApiDoc, OpenApiFuzzer } from '../../../tools/fuzz/openapi-fuzz';
import { createFuzzFixtures } from '../../../tools/fuzz/fixtures';
import { TestApp } from './support/harness';

/**
 * A seeded run of the OpenAPI fuzzer against the real server over HTTP (CI size; `npm run
 * bench:fuzz` runs >= 10,000): no 5xx, every 4xx in the error envelope.
 */
describe('fuzzing every documented operation from openapi.json', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.start({
      RATE_LIMIT_STANDARD: '1000000',
      RATE_LIMIT_WRITE: '1000000',
      RATE_LIMIT_UPLOAD: '1000000',
      RATE_LIMIT_AUTH: '1000000',
    });
  });
  afterAll(() => app?.close());

  it('1,500 mutated requests (seed 20261126): 0 server errors, every 4xx in the envelope', async () => {
    const doc = JSON.parse(readFileSync(join(__dirname, '../../../openapi/openapi.json'), 'utf8')) as OpenApiDoc;
    const statement = await makeStatement(
      LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
      11,
      20,
    );
    const org = await app.newOrg('Fuzz');
    const fixtures = await createFuzzFixtures(app.url, org.api_key, statement.bytes, () => app.settle());
    const summary = await new OpenApiFuzzer(
      { baseUrl: app.url, doc, ...fixtures },
      { seed: 20261126, requests: 1500, concurrency: 4 },
    ).run();
    expect(summary.operations).toBe(Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0));
    if (summary.failures.length) throw new Error(`fuzzing found ${summary.failures.length} failures\n${formatSummary(summary)}`);
    // The run reached the handlers (valid requests succeed) as well as the validators.
    if (summary.byClass['2xx'] < 200 || summary.byClass['4xx'] < 600)
      throw new Error(`too few accepted or rejected requests\n${formatSummary(summary)}`);
    // The server is still healthy afterwards.
    expect((await app.request('GET', '/health', { unchecked: true })).status).toBe(200);
  }, 180_000); // ~45 s on this machine when idle; the margin is for a shared, loaded CI box
});
