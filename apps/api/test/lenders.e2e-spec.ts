import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement, type CorpusItem } from '../../../tools/corpus/corpus';
import { Database } from '../src/platform/database/database.service';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';
import { TestApp } from './support/harness';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;
interface Position {
  lender_id: string | null;
  lender_name: string | null;
  counterparty: string;
  payment_count: number;
  known_lender: boolean;
  transactions: { role: string; statement_id: number | null; amount: number; transaction_id: number | null }[];
}

describe('lenders: the organization’s own names', () => {
  let app: TestApp;
  let org: Org;
  let key: string;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Lenders Org');
    key = org.api_key;
  });
  afterAll(() => app?.close());

  describe('the API', () => {
    it('creates, lists (with the directory on request), reads, changes and deletes an entry, audited', async () => {
      const created = await app.request('POST', '/v1/lenders', {
        key,
        body: { name: '  Harbor Merchant  Funding ', aliases: ['HARBOR MF', 'harbor-mf', 'HMF CAPITAL LLC'] },
      });
      expect(created.status).toBe(201);
      // trimmed, the alias that is the same name spelled otherwise kept once, kind mca by default
      expect(created.body).toMatchObject({
        name: 'Harbor Merchant Funding',
        aliases: ['HARBOR MF', 'HMF CAPITAL LLC'],
        kind: 'mca',
        is_funder: true,
        lender_id: `org:${created.body.id}`,
        mode: 'live',
      });
      const id = created.body.id as number;

      const list = await app.request('GET', '/v1/lenders', { key });
      expect(list.status).toBe(200);
      expect(list.body.meta).toEqual({ page: 1, per_page: 25, total: 1, total_pages: 1 });
      expect(list.body.directory).toBeNull();
      const withDirectory = await app.request('GET', '/v1/lenders?include_directory=true', { key });
      expect(withDirectory.body.directory.version).toMatch(/^\d{4}\.\d+\.\d+$/);
      expect(withDirectory.body.directory.entries.find((e: { id: string }) => e.id === 'ondeck')).toMatchObject({
        name: 'OnDeck',
        kind: 'lender',
      });

      const patched = await app.request('PATCH', `/v1/lenders/${id}`, { key, body: { kind: 'lender' } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ kind: 'lender', aliases: ['HARBOR MF', 'HMF CAPITAL LLC'] });
      expect((await app.request('GET', `/v1/lenders/${id}`, { key })).body.kind).toBe('lender');

      const spare = (await app.request('POST', '/v1/lenders', { key, body: { name: 'Spare Name', kind: 'not_lender' } })).body;
      expect((await app.request('DELETE', `/v1/lenders/${spare.id}`, { key })).status).toBe(200);
      expect((await app.request('GET', `/v1/lenders/${spare.id}`, { key })).status).toBe(404);

      const em = app.get(Database).forScope({ organizationId: org.organization.id, livemode: true });
      const events = await em.find(
        DomainEventRecord,
        { organizationId: org.organization.id, type: { $like: 'lender.%' } },
        { filters: false, orderBy: { id: 'asc' } },
      );
      expect(events.map((e) => e.type)).toEqual(['lender.created', 'lender.updated', 'lender.created', 'lender.deleted']);
      // who did it: the caller's audit name, on every event
      expect(new Set(events.map((e) => e.actor)).size).toBe(1);
      expect(events[0].actor).toMatch(/^(api_key|user):\d+$/);
      expect(events[1].data).toMatchObject({ lender_id: id, kind: 'lender', previous: { kind: 'mca' } });
    });

    it('rejects names too short to match safely, unknown kinds and a taken name, in the error envelope', async () => {
      const short = await app.request('POST', '/v1/lenders', { key, body: { name: 'Good Name Funding', aliases: ['ok alias', 'a-b'] } });
      expect(short.status).toBe(422);
      expect(short.body).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(short.body.errors.map((e: { loc: unknown[] }) => e.loc)).toEqual([['body', 'aliases', 1]]);
      const kind = await app.request('POST', '/v1/lenders', { key, body: { name: 'Other Funding', kind: 'shark' } });
      expect([kind.status, kind.body.code]).toEqual([422, 'VALIDATION_ERROR']);
      const taken = await app.request('POST', '/v1/lenders', { key, body: { name: 'HARBOR MERCHANT FUNDING' } });
      expect([taken.status, taken.body.code]).toEqual([409, 'DUPLICATE_RESOURCE']);
    });

    it('maps more forms to a directory lender (its kind by default); an unknown directory id is 422', async () => {
      const mapped = await app.request('POST', '/v1/lenders', {
        key,
        body: { name: 'OnDeck servicing', aliases: ['ODK SVCS'], directory_id: 'ondeck' },
      });
      expect(mapped.status).toBe(201);
      expect(mapped.body).toMatchObject({ directory_id: 'ondeck', lender_id: 'ondeck', kind: 'lender', is_funder: true });
      const unknown = await app.request('POST', '/v1/lenders', { key, body: { name: 'Nobody Capital', directory_id: 'no-such-lender' } });
      expect([unknown.status, unknown.body.errors.map((e: { loc: unknown[] }) => e.loc)]).toEqual([422, [['body', 'directory_id']]]);
      // detached: a lender of the organization's own again
      const detached = await app.request('PATCH', `/v1/lenders/${mapped.body.id}`, { key, body: { directory_id: null, kind: 'mca' } });
      expect(detached.body).toMatchObject({ directory_id: null, lender_id: `org:${mapped.body.id}`, kind: 'mca' });
      expect((await app.request('DELETE', `/v1/lenders/${mapped.body.id}`, { key })).status).toBe(200);
    });

    it('is scoped to the organization and mode, and a reviewer only reads', async () => {
      const id = (await app.request('GET', '/v1/lenders', { key })).body.data[0].id;
      const other = await app.newOrg('Lenders Snoop');
      expect((await app.request('GET', `/v1/lenders/${id}`, { key: other.api_key })).status).toBe(404);
      expect((await app.request('PATCH', `/v1/lenders/${id}`, { key: other.api_key, body: { kind: 'bank' } })).status).toBe(404);
      expect((await app.request('GET', '/v1/lenders', { key: other.api_key })).body.data).toEqual([]);
      const reviewer = await app.newUser(org.organization.id, 'reviewer');
      expect((await app.request('GET', '/v1/lenders', { key: reviewer.api_key })).status).toBe(200);
      expect((await app.request('POST', '/v1/lenders', { key: reviewer.api_key, body: { name: 'Reviewer Funding' } })).status).toBe(403);
    });
  });

  describe('reaching the analysis', () => {
    let item: CorpusItem;
    let dealId: number;
    let docId: number;
    const positions = async (): Promise<Position[]> =>
      (await app.request('GET', `/v1/deals/${dealId}`, { key })).body.lender_positions?.positions ?? [];
    const ours = (ps: Position[]) => ps.filter((p) => p.counterparty.includes('blue harbor') || p.lender_id?.startsWith('org:'));

    beforeAll(async () => {
      item = await makeStatement(
        LAYOUTS.find((l) => l.name === 'signed_single_column')!,
        33,
        40,
      );
      dealId = (await app.request('POST', '/v1/deals', { key, body: { business_name: 'Harbor Bakery', funding_amount_requested: 20000 } }))
        .body.id;
      const fd = new FormData();
      fd.append('file', new Blob([item.bytes], { type: 'application/pdf' }), 'statement.pdf');
      docId = (await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: fd })).body.id;
      await app.settle();
      // two debits to a funder the directory does not know: no position by name, too few for one by recurrence
      const t = item.truth!;
      for (const [date, amount] of [
        [t.periodStart, -412.5],
        [t.periodEnd, -412.5],
      ] as const) {
        const res = await app.request('POST', `/v1/documents/${docId}/transactions`, {
          key,
          body: { date, description: 'BLUE HARBOR ADV ACH DEBIT', amount, correction_reason: 'missed row' },
        });
        expect(res.status).toBe(201);
      }
      await app.settle();
    });

    it('a name the organization adds makes the next rescore find the position, with its evidence rows', async () => {
      expect(ours(await positions())).toEqual([]);
      const lender = (
        await app.request('POST', '/v1/lenders', { key, body: { name: 'Blue Harbor Advance', aliases: ['BLUE HARBOR ADV'] } })
      ).body;
      const rescore = await app.request('POST', `/v1/deals/${dealId}/rescore`, { key });
      expect(rescore.status).toBe(200);
      expect(rescore.body.rescored).toBe(true);
      const found = ours(await positions());
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        lender_id: `org:${lender.id}`,
        lender_name: 'Blue Harbor Advance',
        known_lender: true,
        payment_count: 2,
      });
      expect(found[0].transactions).toEqual([
        expect.objectContaining({ role: 'payment', statement_id: docId, amount: -412.5 }),
        expect.objectContaining({ role: 'payment', statement_id: docId, amount: -412.5 }),
      ]);
      // each evidence row links to the stored transaction
      const rows = (await app.request('GET', `/v1/documents/${docId}/transactions?per_page=200`, { key })).body.data as {
        id: number;
        description: string;
        amount: number;
      }[];
      for (const e of found[0].transactions) {
        expect(rows.find((r) => r.id === e.transaction_id)).toMatchObject({ description: 'BLUE HARBOR ADV ACH DEBIT', amount: -412.5 });
      }

      // marked as no lender: the next rescore drops the position
      await app.request('PATCH', `/v1/lenders/${lender.id}`, { key, body: { kind: 'not_lender' } });
      expect((await app.request('POST', `/v1/deals/${dealId}/rescore`, { key })).body.rescored).toBe(true);
      expect(ours(await positions())).toEqual([]);
      // unchanged names: nothing to recompute
      expect((await app.request('POST', `/v1/deals/${dealId}/rescore`, { key })).body.rescored).toBe(false);
    });
  });
});
