/**
 * Records the examples of the API reference from a real run: starts the built server on a fresh
 * embedded database, walks an underwriter's day through real HTTP (a deal for a bakery, its
 * bank statements, the report, the recommendation, a correction, rulesets, webhooks, keys) and
 * keeps, per operation, the request body and the answer it got. Secrets in answers are replaced
 * by placeholders; long arrays are cut to three items. Writes apps/api/src/openapi-examples.json, which the
 * document builder merges into openapi.json.
 *
 *   npm run docs:examples   (then `npm run openapi` and commit both files)
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { LAYOUTS } from '../corpus/layouts';
import { makeStatement } from '../corpus/corpus';
import { startServer, stopServer } from '../bench/server';

export interface RecordedExample {
  method: string;
  path: string;
  status: number;
  request?: unknown;
  response?: unknown;
}

const SECRET_FIELDS = new Set(['key', 'api_key', 'test_api_key', 'token', 'access_token', 'secret', 'client_secret']);

let receiverOrigin = 'http://127.0.0.1:0';
const PUBLIC_RECEIVER = 'https://hooks.sunrise-funding.example';

/** Placeholders for secrets and for the local receiver's address, and three items per array. */
export function tidy(value: unknown, field = ''): unknown {
  if (typeof value === 'string' && SECRET_FIELDS.has(field)) {
    if (value.startsWith('ll_live_')) return 'll_live_3kF9xQ2mV7pL8sT1wZ4cB6nD0hJ5yR';
    if (value.startsWith('ll_test_')) return 'll_test_8pW2eK5rN1vC7xM3qL9tZ4bH6jF0sD';
    return 'eyJhbGciOi.example-token.placeholder';
  }
  if (typeof value === 'string' && value.includes(receiverOrigin)) return value.split(receiverOrigin).join(PUBLIC_RECEIVER);
  if (Array.isArray(value)) return value.slice(0, 3).map((v) => tidy(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, tidy(v, k)]));
  }
  return value;
}

async function main(): Promise<void> {
  // a local receiver stands for the funder's webhook endpoint (shown as ${PUBLIC_RECEIVER})
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const server = await startServer({ OUTBOUND_ALLOWLIST: '127.0.0.1/32' });
  const examples: Record<string, RecordedExample> = {};
  const call = async (
    operationId: string,
    method: string,
    template: string,
    path: string,
    options: { body?: unknown; form?: FormData; headers?: Record<string, string>; auth?: boolean } = {},
  ) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth !== false) headers['X-API-Key'] = server.key;
    let body: string | FormData | undefined = options.form;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(server.url + path, { method, headers, body });
    const type = res.headers.get('content-type') ?? '';
    const data = type.includes('json') ? await res.json() : undefined;
    if (!type.includes('json')) await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${operationId}: ${method} ${path} -> ${res.status} ${JSON.stringify(data)}`);
    examples[operationId] = {
      method,
      path: template,
      status: res.status,
      ...(options.body !== undefined ? { request: tidy(options.body) } : {}),
      ...(data !== undefined ? { response: tidy(data) } : {}),
    };
    return data as any;
  };
  /** A call that is not an example (set-up). */
  const raw = async (method: string, path: string, body: unknown): Promise<any> => {
    const form = body instanceof FormData;
    const res = await fetch(server.url + path, {
      method,
      headers: { 'X-API-Key': server.key, ...(form || body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: form ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  };
  const waitReady = async (dealId: number) => {
    for (let i = 0; i < 600; i++) {
      const d = (await (await fetch(`${server.url}/v1/deals/${dealId}`, { headers: { 'X-API-Key': server.key } })).json()) as {
        status: string;
      };
      if (d.status === 'ready' || d.status === 'failed') return d;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`deal ${dealId} not ready`);
  };
  try {
    const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;
    const march = await makeStatement(layout('signed_single_column'), 101, 60);
    const april = await makeStatement(layout('sectioned_unsigned'), 102, 55);
    const pdf = (bytes: Uint8Array, name: string) => new File([bytes as Uint8Array<ArrayBuffer>], name, { type: 'application/pdf' });

    await call('loginV1', 'POST', '/v1/auth/login', '/v1/auth/login', {
      body: { email: 'admin@demo.local', password: server.password },
      auth: false,
    });
    await call('login', 'POST', '/auth/login', '/auth/login', {
      body: { email: 'admin@demo.local', password: server.password },
      auth: false,
    });

    const deal = await call('createDeal', 'POST', '/v1/deals', '/v1/deals', {
      body: {
        business_name: 'Sunrise Bakery LLC',
        dba_name: 'Sunrise Bakery',
        entity_type: 'llc',
        industry: 'Food service',
        ein: '841234567',
        owner_name: 'Maria Lopez',
        funding_amount_requested: 75000,
        external_reference: 'CRM-10442',
      },
      headers: { 'Idempotency-Key': '6f1c2b9e-4a7d-4f2e-9c51-0b8e2d7a3f10' },
    });
    const id = deal.id as number;
    await call('createDealsBatch', 'POST', '/v1/deals/batch', '/v1/deals/batch', {
      body: [
        { business_name: 'Harbor Auto Repair Inc', funding_amount_requested: 40000 },
        { business_name: 'Green Leaf Landscaping LLC', funding_amount_requested: 25000 },
      ],
    });
    const uploaded = await call('uploadDocument', 'POST', '/v1/deals/{deal_id}/documents', `/v1/deals/${id}/documents`, {
      form: (() => {
        const f = new FormData();
        f.append('file', pdf(march.bytes, 'sunrise-march.pdf'));
        f.append('label', 'Operating account');
        return f;
      })(),
      headers: { 'Idempotency-Key': '0d9a1e57-2c44-4b1f-8e0a-6a3b9c7d5e21' },
    });
    const bulkDeal = (await raw('POST', '/v1/deals', { business_name: 'Northside Florist LLC', funding_amount_requested: 20000 }))
      .id as number;
    await call('uploadDocumentsBulk', 'POST', '/v1/deals/{deal_id}/documents/bulk', `/v1/deals/${id}/documents/bulk`, {
      form: (() => {
        const f = new FormData();
        f.append('files', pdf(april.bytes, 'sunrise-april.pdf'));
        return f;
      })(),
    });
    await call('bulkUpload', 'POST', '/v1/bulk-upload', '/v1/bulk-upload', {
      form: (() => {
        const f = new FormData();
        f.append('deal_id', String(bulkDeal));
        f.append('files', pdf(march.bytes, 'florist-march.pdf'));
        return f;
      })(),
    });
    await call('getDocumentStatus', 'GET', '/v1/documents/{document_id}/status', `/v1/documents/${uploaded.id}/status`);
    await waitReady(id);
    await waitReady(bulkDeal);
    const docId = uploaded.id as number;

    await call('getDeal', 'GET', '/v1/deals/{deal_id}', `/v1/deals/${id}`);
    await call('listDeals', 'GET', '/v1/deals', '/v1/deals?per_page=3&status=ready');
    await call('getDealStats', 'GET', '/v1/deals/stats', '/v1/deals/stats');
    await call('updateDeal', 'PATCH', '/v1/deals/{deal_id}', `/v1/deals/${id}`, {
      body: { funding_amount_requested: 80000, industry: 'Bakery' },
    });
    await call('listDocuments', 'GET', '/v1/deals/{deal_id}/documents', `/v1/deals/${id}/documents`);
    await call('getDocument', 'GET', '/v1/documents/{document_id}', `/v1/documents/${docId}`);
    await call('getDocumentAnalysis', 'GET', '/v1/documents/{document_id}/analysis', `/v1/documents/${docId}/analysis`);
    await call('getDocumentExtraction', 'GET', '/v1/documents/{document_id}/extraction', `/v1/documents/${docId}/extraction`);
    await call('getDocumentsBatchStatus', 'POST', '/v1/documents/batch-status', '/v1/documents/batch-status', {
      body: { document_ids: [docId] },
    });
    await call('downloadDocument', 'GET', '/v1/documents/{document_id}/download', `/v1/documents/${docId}/download`);
    await call('getDocumentPdf', 'GET', '/v1/documents/{document_id}/pdf', `/v1/documents/${docId}/pdf`);
    const txs = await call(
      'listDocumentTransactions',
      'GET',
      '/v1/documents/{document_id}/transactions',
      `/v1/documents/${docId}/transactions?per_page=3`,
    );
    await call('listDealTransactions', 'GET', '/v1/deals/{deal_id}/transactions', `/v1/deals/${id}/transactions?per_page=3`);
    const tx = txs.data.find((t: { amount: number }) => t.amount < 0) ?? txs.data[0];
    await call(
      'correctTransaction',
      'PATCH',
      '/v1/documents/{document_id}/transactions/{transaction_id}',
      `/v1/documents/${docId}/transactions/${tx.id}`,
      {
        body: { category: 'operating_expense', correction_reason: 'Supplier payment, not a loan payment' },
      },
    );
    await call(
      'listTransactionCorrections',
      'GET',
      '/v1/transactions/{transaction_id}/corrections',
      `/v1/transactions/${tx.id}/corrections`,
    );
    await waitReady(id);
    await call('getDealRecommendation', 'GET', '/v1/deals/{deal_id}/recommendation', `/v1/deals/${id}/recommendation`);

    const rs = await call('createRuleset', 'POST', '/v1/rulesets', '/v1/rulesets', {
      body: {
        name: 'Conservative restaurants',
        description: 'Higher balance and NSF bars for food service',
        factors: [
          { name: 'revenue_stability', weight: 0.3, threshold: 50 },
          { name: 'average_daily_balance', weight: 0.3, threshold: 40 },
          { name: 'nsf_frequency', weight: 0.25, threshold: 60 },
          { name: 'high_risk_transactions', weight: 0.15, threshold: 20 },
        ],
        approval_threshold: 72,
        decline_threshold: 45,
      },
    });
    await call('listRulesets', 'GET', '/v1/rulesets', '/v1/rulesets');
    const spare = await raw('POST', '/v1/rulesets', {
      name: 'Old draft',
      factors: [{ name: 'revenue_stability', weight: 1, threshold: 40 }],
      approval_threshold: 70,
      decline_threshold: 40,
    });
    await call('deleteRuleset', 'DELETE', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${spare.id}`);
    await call('getRuleset', 'GET', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${rs.id}`);
    await call('updateRuleset', 'PATCH', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${rs.id}`, { body: { approval_threshold: 75 } });
    await call('replaceRuleset', 'PUT', '/v1/rulesets/{ruleset_id}', `/v1/rulesets/${rs.id}`, {
      body: {
        name: 'Conservative restaurants',
        factors: [
          { name: 'revenue_stability', weight: 0.5, threshold: 50 },
          { name: 'nsf_frequency', weight: 0.5, threshold: 60 },
        ],
        approval_threshold: 75,
        decline_threshold: 45,
      },
    });
    await call('evaluateDeal', 'POST', '/v1/deals/{deal_id}/evaluate', `/v1/deals/${id}/evaluate?ruleset_id=${rs.id}`);
    await call('setDefaultRuleset', 'POST', '/v1/rulesets/{ruleset_id}/set-default', `/v1/rulesets/${rs.id}/set-default`);
    await call('regenerateDealSummary', 'POST', '/v1/deals/{deal_id}/regenerate-summary', `/v1/deals/${id}/regenerate-summary`);
    await call('reprocessFailedDocuments', 'POST', '/v1/deals/{deal_id}/reprocess-failed', `/v1/deals/${id}/reprocess-failed`);
    await call('decideDeal', 'POST', '/v1/deals/{deal_id}/decision', `/v1/deals/${id}/decision`, { body: { decision: 'approve' } });
    await call('reclassifyDocument', 'POST', '/v1/documents/{document_id}/reclassify', `/v1/documents/${docId}/reclassify`, {
      body: { document_type: 'bank_statement' },
    });
    await waitReady(id);
    const cancelDeal = (await raw('POST', '/v1/deals', { business_name: 'Cancel Example LLC', funding_amount_requested: 5000 }))
      .id as number;
    const f = new FormData();
    f.append('file', pdf(april.bytes, 'wrong-file.pdf'));
    const toCancel = await raw('POST', `/v1/deals/${cancelDeal}/documents`, f);
    await call('cancelDocument', 'POST', '/v1/documents/{document_id}/cancel', `/v1/documents/${toCancel.id}/cancel`).catch(
      () => undefined,
    );
    const broken = new FormData();
    broken.append(
      'file',
      new File([new TextEncoder().encode('%PDF-1.4\n% truncated upload\n')], 'scan-truncated.pdf', { type: 'application/pdf' }),
    );
    const failed = await raw('POST', `/v1/deals/${cancelDeal}/documents`, broken);
    await waitReady(cancelDeal);
    await call('reprocessDocument', 'POST', '/v1/documents/{document_id}/reprocess', `/v1/documents/${failed.id}/reprocess`);

    await call('putWebhookConfig', 'PUT', '/v1/webhooks/config', '/v1/webhooks/config', {
      body: {
        url: 'https://hooks.sunrise-funding.example/ledgerlens',
        events: ['deal.ready', 'deal.decision', 'document.failed'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        enabled: true,
      },
    });
    await call('postWebhookConfig', 'POST', '/v1/webhooks/config', '/v1/webhooks/config', {
      body: {
        url: 'https://hooks.sunrise-funding.example/ledgerlens',
        events: ['deal.ready', 'deal.decision'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        active: true,
      },
    });
    await call('getWebhookConfig', 'GET', '/v1/webhooks/config', '/v1/webhooks/config');
    await raw('PUT', '/v1/webhooks/config', {
      url: `${receiverOrigin}/ledgerlens`,
      events: ['deal.ready', 'deal.decision', 'document.failed'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      enabled: true,
    });
    await call('testWebhook', 'POST', '/v1/webhooks/test', '/v1/webhooks/test', { body: { event_type: 'deal.ready' } });
    await raw('POST', `/v1/deals/${bulkDeal}/decision`, { decision: 'decline' });
    let deliveries: { data: { id: string }[] } = { data: [] };
    for (let i = 0; i < 100 && !deliveries.data.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      deliveries = await raw('GET', '/v1/webhooks/deliveries?per_page=3', undefined);
    }
    await call('listWebhookDeliveries', 'GET', '/v1/webhooks/deliveries', '/v1/webhooks/deliveries?per_page=3');
    await call('getWebhookDelivery', 'GET', '/v1/webhooks/deliveries/{delivery_id}', `/v1/webhooks/deliveries/${deliveries.data[0].id}`);
    await call('deleteWebhookConfig', 'DELETE', '/v1/webhooks/config', '/v1/webhooks/config');

    const key = await call('createKey', 'POST', '/v1/keys', '/v1/keys', {
      body: { name: 'CRM sync', scopes: ['deals:read', 'deals:write'] },
    });
    await call('listKeys', 'GET', '/v1/keys', '/v1/keys');
    await call('rotateKey', 'POST', '/v1/keys/{key_id}/rotate', `/v1/keys/${key.id}/rotate`);
    await call('revokeKey', 'DELETE', '/v1/keys/{key_id}', `/v1/keys/${key.id}`);
    await call('deleteDeal', 'DELETE', '/v1/deals/{deal_id}', `/v1/deals/${cancelDeal}`);
  } finally {
    await stopServer(server);
    receiver.close();
  }
  const out = resolve(__dirname, '../../../apps/api/src/openapi-examples.json');
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(out, JSON.stringify(sorted, null, 2) + '\n');
  console.log(`${Object.keys(sorted).length} operations recorded -> ${out}`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
