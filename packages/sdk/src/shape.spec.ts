import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Ledgerlens } from './index.js';
import { OPERATIONS, type OperationId } from './operations.js';

/**
 * One shape: the operations whose answer wraps one resource in `{data: {...}}` give the resource
 * itself from the SDK's methods. The list of such operations comes from the contract (OPERATIONS,
 * `wrapped`), so a new one without an entry here fails.
 */
const CALLS: Partial<Record<OperationId, (c: Ledgerlens) => Promise<unknown>>> = {
  getCrmConfig: (c) => c.crm.getConfig(),
  putCrmConfig: (c) => c.crm.setConfig({} as never),
  getCrmSyncRun: (c) => c.crm.run('log_1'),
  receiveCrmWebhook: (c) => c.crm.receiveWebhook({}),
  getIngestBatchDetail: (c) => c.ingest.batch('batch_1', { orgId: 1 }),
  markNotificationsRead: (c) => c.notifications.markRead([1]),
  getWebhookConfig: (c) => c.webhooks.getConfig(),
  putWebhookConfig: (c) => c.webhooks.setConfig({} as never),
  postWebhookConfig: (c) => c.webhooks.postConfig({} as never),
  getWebhookDelivery: (c) => c.webhooks.delivery('whd_1'),
  testWebhook: (c) => c.webhooks.test(),
};

describe('one shape: the resource itself', () => {
  let server: Server;
  let client: Ledgerlens;
  let answer: (method: string, url: string) => unknown;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer(req.method!, req.url!)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new Ledgerlens({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k' });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const wrapped = (Object.keys(OPERATIONS) as OperationId[]).filter((id) => (OPERATIONS[id] as { wrapped: boolean }).wrapped);

  it('knows every wrapped operation of the contract', () => {
    expect(wrapped.length).toBeGreaterThan(0);
    expect(Object.keys(CALLS).sort()).toEqual([...wrapped].sort());
  });

  it.each(wrapped)('%s returns the resource, not {data: ...}', async (id) => {
    answer = (method, url) => ({ data: { method, path: url.split('?')[0] } });
    const result = (await CALLS[id]!(client)) as { method: string; path: string };
    const op = OPERATIONS[id];
    expect(result.method).toBe(op.method);
    expect(result.path).toMatch(new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`));
  });

  it('keeps lists as they are: {data: [...]} and {data, meta} pages', async () => {
    answer = () => ({ data: [{ id: 1 }] });
    expect(await client.crm.mappings()).toEqual({ data: [{ id: 1 }] });
    answer = () => ({ data: [{ id: 1 }], meta: { page: 1, per_page: 25, total: 1, total_pages: 1 } });
    expect((await client.webhooks.deliveries()).meta.total).toBe(1);
  });
});
