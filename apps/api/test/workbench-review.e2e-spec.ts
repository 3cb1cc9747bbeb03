import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement, CorpusItem } from '../../../tools/corpus/corpus';
import { TestApp } from './support/harness';
import { Document } from '../src/modules/pipeline/entities/document.entities';
import { Database } from '../src/platform/database/database.service';

const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;

interface Row {
  id: number;
  date: string;
  description: string;
  amount: number;
  balance: number | null;
  origin: string;
  source: unknown;
}

/**
 * What the workbench's review of a statement needs from the API: a date fixed, a missed row added,
 * a phantom row deleted (each with a reason in the trail, the deal rescored, and kept through a new
 * reading of the file), the document marked reviewed, and the organization's review queue.
 */
describe('workbench review: add, delete, fix a date, mark reviewed, the review queue', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let key: string;
  let statement: CorpusItem;

  const newDeal = async (name = 'Review Co') =>
    (await app.request('POST', '/v1/deals', { key, body: { business_name: name, funding_amount_requested: 40000 } })).body.id as number;
  const upload = async (dealId: number) => {
    const fd = new FormData();
    fd.append('file', new Blob([statement.bytes], { type: 'application/pdf' }), `${statement.name}.pdf`);
    const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: fd });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const rows = async (docId: number): Promise<Row[]> =>
    (await app.request('GET', `/v1/documents/${docId}/transactions?per_page=200`, { key })).body.data;
  const dealOf = async (dealId: number) => (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;
  /** The reader's verdict set by hand (and the deal's scoring key cleared, so a rescore reads it). */
  const flagForReview = async (docId: number, reasons: string[]) => {
    const em = app.get(Database).system();
    await em.nativeUpdate(Document, { id: docId }, { needsReview: true, reviewReasons: reasons }, { filters: false });
    await em
      .getConnection()
      .execute(`update deals set report = report - 'inputs_key' where id = (select deal_id from documents where id = ${docId})`);
  };

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Workbench Review');
    key = org.api_key;
    statement = await makeStatement(layout('signed_single_column'), 21, 24);
  });
  afterAll(() => app?.close());

  describe('rows', () => {
    let dealId: number;
    let docId: number;
    let before: Row[];
    let deposits: number;

    beforeAll(async () => {
      dealId = await newDeal();
      docId = await upload(dealId);
      await app.settle();
      before = await rows(docId);
      deposits = (await dealOf(dealId)).financials.total_deposits;
    });

    it('fixes a date to a calendar date only, with the old and new value in the trail', async () => {
      const row = before[3];
      const bad = await app.request('PATCH', `/v1/documents/${docId}/transactions/${row.id}`, {
        key,
        body: { date: '2023-02-29', correction_reason: 'year misread' },
      });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body)).toContain('2023-02-29 is not a calendar date');
      const day = String(Number(row.date.slice(8)) === 1 ? 2 : 1).padStart(2, '0');
      const fixed = `${row.date.slice(0, 8)}${day}`;
      const res = await app.request('PATCH', `/v1/documents/${docId}/transactions/${row.id}`, {
        key,
        body: { date: fixed, correction_reason: 'day misread' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: row.id, date: fixed, corrected: true, origin: 'read' });
      const trail = (await app.request('GET', `/v1/transactions/${row.id}/corrections`, { key })).body;
      expect(trail.corrections).toEqual([expect.objectContaining({ field: 'date', old_value: row.date, new_value: fixed })]);
    });

    it('adds a missed row after another, moves the rest down, records it and rescores the deal', async () => {
      const after = before[5];
      const res = await app.request('POST', `/v1/documents/${docId}/transactions`, {
        key,
        body: {
          date: after.date,
          description: 'MOBILE DEPOSIT 0042',
          amount: 1234.56,
          category: 'non_revenue',
          after_transaction_id: after.id,
          correction_reason: 'missed: printed across the page fold',
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        amount: 1234.56,
        transaction_type: 'credit',
        category: 'non_revenue',
        origin: 'added',
        source: null,
      });
      const now = await rows(docId);
      // listed by date, then by place on the statement: right after the row it follows
      expect(now).toHaveLength(before.length + 1);
      expect(now.findIndex((r) => r.id === res.body.id)).toBe(now.findIndex((r) => r.id === after.id) + 1);
      const trail = (await app.request('GET', `/v1/transactions/${res.body.id}/corrections`, { key })).body;
      expect(trail.corrections).toEqual([
        expect.objectContaining({ field: 'row', old_value: null, correction_reason: 'missed: printed across the page fold' }),
      ]);
      expect(JSON.parse(trail.corrections[0].new_value)).toMatchObject({ description: 'MOBILE DEPOSIT 0042', amount: '1234.56' });
      expect((await dealOf(dealId)).financials.total_deposits).toBeCloseTo(deposits + 1234.56, 2);
      expect((await app.request('GET', `/v1/documents/${docId}`, { key })).body.transaction_count).toBe(before.length + 1);
    });

    it('refuses an added row that is 0, on an impossible date, or after a row of another document', async () => {
      const bodies = [
        { date: '2024-01-05', description: 'x', amount: 0, correction_reason: 'r' },
        { date: '2024-04-31', description: 'x', amount: 5, correction_reason: 'r' },
        { date: '2024-01-05', description: 'x', amount: 5, after_transaction_id: 99999999, correction_reason: 'r' },
        { date: '2024-01-05', description: 'x', amount: 5 },
      ];
      for (const body of bodies) {
        const res = await app.request('POST', `/v1/documents/${docId}/transactions`, { key, body });
        expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 422]);
      }
      expect(await rows(docId)).toHaveLength(before.length + 1);
    });

    it('deletes a phantom row: gone from the rows and the figures, its trail kept', async () => {
      const phantom = before.find((r) => r.amount > 0 && r.id !== before[3].id)!;
      const totals = (await dealOf(dealId)).financials.total_deposits;
      const res = await app.request('DELETE', `/v1/documents/${docId}/transactions/${phantom.id}`, {
        key,
        body: { correction_reason: 'read twice from the summary box' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: phantom.id, document_id: docId, deal_id: dealId, deleted: true });
      expect((await rows(docId)).map((r) => r.id)).not.toContain(phantom.id);
      expect((await dealOf(dealId)).financials.total_deposits).toBeCloseTo(totals - phantom.amount, 2);
      const trail = (await app.request('GET', `/v1/transactions/${phantom.id}/corrections`, { key })).body;
      expect(trail.corrections).toEqual([
        expect.objectContaining({ field: 'row', new_value: null, correction_reason: 'read twice from the summary box' }),
      ]);
      expect(JSON.parse(trail.corrections[0].old_value)).toMatchObject({ date: phantom.date, description: phantom.description });
      const again = await app.request('DELETE', `/v1/documents/${docId}/transactions/${phantom.id}`, {
        key,
        body: { correction_reason: 'x' },
      });
      expect(again.status).toBe(404);
    });

    it('a new reading of the file keeps the added row, drops the deleted one again and keeps the fixed date', async () => {
      const current = await rows(docId);
      const totals = (await dealOf(dealId)).financials.total_deposits;
      expect((await app.request('POST', `/v1/documents/${docId}/reclassify?document_type=bank_statement`, { key })).status).toBe(202);
      await app.settle();
      const reread = await rows(docId);
      // the reading is replaced: its rows are new, but the corrected and added ones keep their ids
      const shape = (r: Row) => [r.date, r.description, r.amount, r.origin];
      expect(reread.map(shape)).toEqual(current.map(shape));
      const corrected = current.filter((r) => r.origin === 'added' || r.id === before[3].id).map((r) => r.id);
      expect(reread.filter((r) => corrected.includes(r.id))).toHaveLength(2);
      // the category the person gave it stays through the deal's screening
      expect(reread.find((r) => r.origin === 'added')).toMatchObject({
        description: 'MOBILE DEPOSIT 0042',
        source: null,
        category: 'non_revenue',
      });
      expect(reread.filter((r) => r.origin === 'read').every((r) => r.source !== null)).toBe(true);
      expect((await dealOf(dealId)).financials.total_deposits).toBeCloseTo(totals, 2);
    });

    it('a reviewer may not add or delete rows (403); another organization gets 404', async () => {
      const reviewer = await app.newUser(org.organization.id, 'reviewer');
      const other = await app.newOrg('Workbench Snoop');
      const row = (await rows(docId))[0];
      const add = { date: row.date, description: 'x', amount: 5, correction_reason: 'r' };
      expect((await app.request('POST', `/v1/documents/${docId}/transactions`, { key: reviewer.api_key, body: add })).status).toBe(403);
      const del = { correction_reason: 'r' };
      const path = `/v1/documents/${docId}/transactions/${row.id}`;
      expect((await app.request('DELETE', path, { key: reviewer.api_key, body: del })).status).toBe(403);
      expect((await app.request('POST', `/v1/documents/${docId}/transactions`, { key: other.api_key, body: add })).status).toBe(404);
      expect((await app.request('DELETE', path, { key: other.api_key, body: del })).status).toBe(404);
      expect((await app.request('POST', `/v1/documents/${docId}/review`, { key: other.api_key, body: {} })).status).toBe(404);
      expect(await rows(docId)).toHaveLength(before.length);
    });
  });

  describe('mark reviewed and the queue', () => {
    it('clears the flag with who and when, on the timeline; the deal recommendation follows', async () => {
      const dealId = await newDeal('Flagged Co');
      const docId = await upload(dealId);
      await app.settle();
      await flagForReview(docId, ['a balance printed twice with different values']);
      await app.request('POST', `/v1/deals/${dealId}/rescore`, { key });
      const held = await dealOf(dealId);
      expect(held.recommendation.decision).toBe('review');
      const reviewer = await app.newUser(org.organization.id, 'reviewer');
      expect((await app.request('POST', `/v1/documents/${docId}/review`, { key: reviewer.api_key, body: {} })).status).toBe(403);
      const res = await app.request('POST', `/v1/documents/${docId}/review`, { key, body: { note: 'checked against the PDF' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: docId, needs_review: false, reviewed_by: expect.stringMatching(/^(user|key):/) });
      expect(Date.parse(res.body.reviewed_at)).not.toBeNaN();
      const after = await dealOf(dealId);
      expect(after.recommendation.reasons.join(' ')).not.toMatch(/needs review/);
      expect(after.review.documents).toEqual([]);
      await app.drainEvents(); // the timeline is written from the events
      const timeline = (await app.request('GET', `/v1/deals/${dealId}/timeline`, { key })).body;
      const lines = JSON.stringify(timeline);
      expect(lines).toContain('reviewed: checked against the PDF');
    });

    it('lists every flagged document of the organization: assigned to me first, then oldest first', async () => {
      const me = await app.newUser(org.organization.id, 'manager');
      const docs: number[] = [];
      const deals: number[] = [];
      for (const name of ['Queue A', 'Queue B', 'Queue C']) {
        const dealId = await newDeal(name);
        deals.push(dealId);
        docs.push(await upload(dealId));
        await app.settle();
        await flagForReview(docs[docs.length - 1], [`${name}: running balance breaks at row 3`]);
      }
      const assign = await app.request('POST', `/v1/deals/${deals[2]}/assignments`, {
        key,
        body: { user_id: me.user.id, role: 'underwriter' },
      });
      expect(assign.status).toBeLessThan(300);
      const queue = (await app.request('GET', '/v1/review-queue?per_page=100', { key: me.api_key })).body;
      const ids = queue.data.map((d: { document_id: number }) => d.document_id);
      expect(ids.slice(0, 1)).toEqual([docs[2]]);
      expect(ids.indexOf(docs[0])).toBeLessThan(ids.indexOf(docs[1]));
      expect(queue.data[0]).toMatchObject({
        document_id: docs[2],
        deal_id: deals[2],
        business_name: 'Queue C',
        assigned_to_me: true,
        review_reasons: ['Queue C: running balance breaks at row 3'],
      });
      expect(queue.data.find((d: { document_id: number }) => d.document_id === docs[0])).toMatchObject({ assigned_to_me: false });
      expect(queue.meta.total).toBe(queue.data.length);
      await app.request('POST', `/v1/documents/${docs[0]}/review`, { key, body: {} });
      const after = (await app.request('GET', '/v1/review-queue?per_page=100', { key: me.api_key })).body;
      expect(after.data.map((d: { document_id: number }) => d.document_id)).not.toContain(docs[0]);
      const other = await app.newOrg('Queue Snoop');
      expect((await app.request('GET', '/v1/review-queue', { key: other.api_key })).body.data).toEqual([]);
      expect((await app.request('GET', '/v1/review-queue', { key: org.test_api_key })).body.data).toEqual([]);
    });
  });
});
