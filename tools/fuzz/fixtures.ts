import type { FuzzTarget } from './openapi-fuzz';

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const init: RequestInit = { method, headers: { 'X-API-Key': key } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  const res = await fetch(baseUrl + path, init);
  const json = await res.json();
  if (res.status >= 400) throw new Error(`fixture ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Records for the fuzzer to aim at (a deal with a processed statement and its transactions, a
 * ruleset, a spare key), made through the API with an admin live key. `settle` waits until the
 * upload is processed (the test harness awaits the queue; the benchmark polls the status).
 */
export async function createFuzzFixtures(
  baseUrl: string,
  liveKey: string,
  statementPdf: Uint8Array,
  settle: () => Promise<void>,
): Promise<Omit<FuzzTarget, 'baseUrl' | 'doc'>> {
  const api = (method: string, path: string, body?: unknown) => call(baseUrl, liveKey, method, path, body);
  const testKey = await api('POST', '/v1/keys', { name: 'fuzz test-mode key', mode: 'test' });
  const spare = await api('POST', '/v1/keys', { name: 'fuzz spare key', scopes: ['read'] });
  const deal = await api('POST', '/v1/deals', { business_name: 'Fuzz Bakery LLC', funding_amount_requested: 50000 });
  const form = new FormData();
  form.append('file', new Blob([statementPdf], { type: 'application/pdf' }), 'statement.pdf');
  const document = await api('POST', `/v1/deals/${deal.id}/documents`, form);
  await settle();
  const transactions = await api('GET', `/v1/documents/${document.id}/transactions?per_page=5`).catch(() => ({ data: [] }));
  const ruleset = await api('POST', '/v1/rulesets', {
    name: 'Fuzz factors',
    factors: [{ name: 'revenue_stability', weight: 1, threshold: 40 }],
    approval_threshold: 70,
    decline_threshold: 40,
  });
  const keys = (await api('GET', '/v1/keys?per_page=100')).data as { id: number; key_prefix: string }[];
  const own = keys.filter((k) => k.key_prefix === liveKey.slice(0, 12) || k.key_prefix === testKey.key.slice(0, 12)).map((k) => k.id);
  return {
    keys: { live: liveKey, test: testKey.key },
    ids: {
      deal_id: [deal.id],
      document_id: [document.id],
      transaction_id: (transactions.data as { id: number }[]).map((t) => t.id),
      ruleset_id: [ruleset.id],
      key_id: [spare.id],
    },
    protectedIds: { key_id: own },
  };
}
