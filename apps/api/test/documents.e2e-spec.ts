import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement, CorpusItem } from '../../../tools/corpus/corpus';
import { taxReturn } from '../../../tools/corpus/others';
import { Rng } from '../../../tools/corpus/rng';
import { TestApp, TestResponse } from './support/harness';
import { Document } from '../src/modules/pipeline/entities/document.entities';
import { DocumentProcessor } from '../src/modules/pipeline/services/processing.processor';
import { DocumentProducer } from '../src/modules/pipeline/services/processing.producer';
import { seedDocument as seed } from './support/seed-document';
import { Database } from '../src/platform/database/database.service';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';

const layout = (name: string) => LAYOUTS.find((l) => l.name === name)!;
const round2 = (n: number) => Math.round(n * 100) / 100;

function form(files: { field?: string; name: string; bytes: Uint8Array; type?: string }[], fields: Record<string, string> = {}): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const f of files) fd.append(f.field ?? 'file', new Blob([f.bytes], { type: f.type ?? 'application/pdf' }), f.name);
  return fd;
}

describe('documents, the pipeline and transactions', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let key: string;
  let statement: CorpusItem;
  let second: CorpusItem;

  const newDeal = async (k = key) =>
    (await app.request('POST', '/v1/deals', { key: k, body: { business_name: 'Pipeline Co', funding_amount_requested: 40000 } })).body
      .id as number;
  const upload = (
    dealId: number,
    item: CorpusItem,
    opts: { k?: string; headers?: Record<string, string>; fields?: Record<string, string> } = {},
  ) =>
    app.request('POST', `/v1/deals/${dealId}/documents`, {
      key: opts.k ?? key,
      form: form([{ name: `${item.name}.pdf`, bytes: item.bytes }], opts.fields),
      headers: opts.headers,
    });

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Docs');
    key = org.api_key;
    statement = await makeStatement(layout('sectioned_unsigned'), 11, 40);
    second = await makeStatement(layout('signed_single_column'), 12, 30);
  });
  afterAll(() => app?.close());

  describe('upload to ready', () => {
    let dealId: number;
    let docId: number;

    beforeAll(async () => {
      dealId = await newDeal();
      const res = await upload(dealId, statement);
      expect(res.status).toBe(201);
      docId = res.body.id;
      await app.settle();
    });

    it('answers the upload with the new document, status uploaded', async () => {
      const deal = await newDeal();
      const res = await upload(deal, second);
      expect(res.body).toMatchObject({
        deal_id: deal,
        filename: `${second.name}.pdf`,
        status: 'uploaded',
        mime_type: 'application/pdf',
        file_size: second.bytes.length,
        document_type: null,
      });
      expect(res.body.message).toMatch(/processing/);
      await app.settle();
    });

    it('reads the statement as the ground truth says', async () => {
      const truth = statement.truth;
      const doc = (await app.request('GET', `/v1/documents/${docId}`, { key })).body;
      expect(doc).toMatchObject({
        status: 'completed',
        document_type: 'bank_statement',
        bank_name: truth.bankName,
        account_number_last4: truth.accountNumberLast4,
        account_last_four: truth.accountNumberLast4,
        statement_start_date: truth.periodStart,
        statement_end_date: truth.periodEnd,
        opening_balance: truth.openingBalance,
        closing_balance: truth.closingBalance,
        transaction_count: truth.transactions!.length,
        extraction_method: 'text',
      });
      expect(doc.reconciliation.reconciled).toBe(true);
      // every header field says where it was read and how sure the reading is
      expect(doc.field_sources).toMatchObject({
        bank_name: { page: 1, line: expect.any(Number), via: 'logo text', text: truth.bankName, confidence: expect.any(Number) },
        account_number_last4: { page: 1, via: 'Account Number', confidence: 0.95 },
        account_holder: { page: 1, via: 'mailing block', text: truth.accountHolder },
        statement_period_start: { page: 1, via: expect.stringMatching(/period|range/) },
        opening_balance: { page: 1, via: 'Beginning Balance', confidence: 0.95 },
        closing_balance: { page: 1, via: 'Ending Balance', confidence: 0.95 },
      });
      // with the boxes of the printed words, to highlight them on the page: inside the page, in PDF points
      for (const f of ['bank_name', 'account_number_last4', 'opening_balance'] as const) {
        const boxes = doc.field_sources[f].boxes as number[][];
        expect(boxes).toHaveLength(1);
        const [x0, y0, x1, y1] = boxes[0];
        expect(0 <= x0 && x0 < x1 && x1 <= 612 && 0 <= y0 && y0 < y1 && y1 <= 792).toBe(true);
      }
      const credits = round2(truth.transactions!.filter((t) => t.amount > 0).reduce((s, t) => s + t.amount, 0));
      expect(doc.analysis.total_credits).toBeCloseTo(credits, 2);
      expect(doc.analysis.total_deposits).toBeCloseTo(credits, 2);
      expect(doc.extraction).toMatchObject({ method: 'text', parser: 'rule', model: null });
    });

    it('lists the document with its statement period and currency', async () => {
      const list = await app.request('GET', `/v1/deals/${dealId}/documents`, { key });
      expect(list.body.data).toEqual([
        expect.objectContaining({
          id: docId,
          statement_period_start: statement.truth.periodStart,
          statement_period_end: statement.truth.periodEnd,
          currency: null,
        }),
      ]);
    });

    it('lists every transaction chronologically with signed amounts', async () => {
      const res = await app.request('GET', `/v1/documents/${docId}/transactions?per_page=200`, { key });
      const truth = statement.truth.transactions!;
      expect(res.body.meta.total).toBe(truth.length);
      const key2 = (t: { date: string; amount: number }) => `${t.date} ${t.amount.toFixed(2).padStart(12)}`;
      const dates = res.body.data.map((t: { date: string }) => t.date);
      expect(dates).toEqual([...dates].sort());
      expect(res.body.data.map(key2).sort()).toEqual(truth.map(key2).sort());
      expect(
        res.body.data.every((t: { transaction_type: string; amount: number }) =>
          t.amount < 0 ? t.transaction_type === 'debit' : t.transaction_type === 'credit',
        ),
      ).toBe(true);
    });

    it('makes the deal ready with a report built from the statement', async () => {
      const deal = (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;
      expect(deal.status).toBe('ready');
      expect(deal.document_count).toBe(1);
      expect(deal.coverage).toMatchObject({ statement_count: 1 });
      const credits = round2(statement.truth.transactions!.filter((t) => t.amount > 0).reduce((s, t) => s + t.amount, 0));
      expect(deal.financials.total_deposits).toBeCloseTo(credits, 2);
      expect(deal.financials.ending_balance).toBeCloseTo(statement.truth.closingBalance!, 2);
      expect(typeof deal.health.score).toBe('number');
      expect(deal.health_score).toBe(deal.health.score);
      expect(deal.health_grade).toBe(deal.health.grade);
      expect(deal.avg_daily_balance).not.toBeNull();
      expect(deal.recommendation).toMatchObject({
        decision: expect.stringMatching(/^(approve|decline)$/),
        total_score: expect.any(Number),
        ruleset_name: expect.any(String),
      });
      expect(deal.ai_summary).toEqual(expect.any(String));
      expect(deal.ai_summary.length).toBeGreaterThan(40);
      const rec = await app.request('GET', `/v1/deals/${dealId}/recommendation`, { key });
      expect(rec.status).toBe(200);
      expect(rec.body.decision).toBe(deal.recommendation.decision);
    });

    it('reports the steps in the status view', async () => {
      const res = await app.request('GET', `/v1/documents/${docId}/status`, { key });
      expect(res.body).toMatchObject({ id: docId, status: 'completed', progress_pct: 100, processing_step: 'Completed', error: null });
      const names = res.body.steps.map((s: { name: string }) => s.name);
      expect(names[0]).toBe('extracting_text');
      expect(names).toEqual(expect.arrayContaining(['classifying', 'computing_metrics', 'completed']));
      expect(res.body.steps.every((s: { completed_at: string | null }) => s.completed_at)).toBe(true);
    });

    it('serves the original file byte for byte, with name and type', async () => {
      for (const path of ['pdf', 'download']) {
        const res = await app.request('GET', `/v1/documents/${docId}/${path}`, { key });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/pdf');
        expect(res.headers.get('content-disposition')).toContain(`${statement.name}.pdf`);
        expect(Buffer.compare(res.body as Buffer, Buffer.from(statement.bytes))).toBe(0);
      }
    });

    it('serves the extraction and analysis records', async () => {
      const extraction = await app.request('GET', `/v1/documents/${docId}/extraction`, { key });
      expect(extraction.body).toMatchObject({
        document_id: docId,
        method: 'text',
        bank_name: statement.truth.bankName,
        transaction_count: statement.truth.transactions!.length,
      });
      const analysis = await app.request('GET', `/v1/documents/${docId}/analysis`, { key });
      expect(analysis.body.document_id).toBe(docId);
      expect(analysis.body.deposit_count).toBe(statement.truth.transactions!.filter((t) => t.amount > 0).length);
    });

    it('filters transactions by direction, date range (both names) and flags, and lists the deal chronologically', async () => {
      const truth = statement.truth.transactions!;
      const credits = await app.request('GET', `/v1/documents/${docId}/transactions?type=credit&per_page=200`, { key });
      expect(credits.body.meta.total).toBe(truth.filter((t) => t.amount > 0).length);
      const debits = await app.request('GET', `/v1/documents/${docId}/transactions?transaction_type=debit&per_page=200`, { key });
      expect(debits.body.meta.total).toBe(truth.filter((t) => t.amount < 0).length);
      const mid = truth[Math.floor(truth.length / 2)].date;
      const from = await app.request('GET', `/v1/documents/${docId}/transactions?start_date=${mid}&per_page=200`, { key });
      expect(from.body.meta.total).toBe(truth.filter((t) => t.date >= mid).length);
      const to = await app.request('GET', `/v1/documents/${docId}/transactions?date_to=${mid}&per_page=200`, { key });
      expect(to.body.meta.total).toBe(truth.filter((t) => t.date <= mid).length);
      const flagged = await app.request('GET', `/v1/documents/${docId}/transactions?flagged=true&per_page=200`, { key });
      expect(flagged.body.data.every((t: { screening_bucket: string | null }) => t.screening_bucket !== null)).toBe(true);
      expect((await app.request('GET', `/v1/documents/${docId}/transactions`, { key })).body.meta.per_page).toBe(50);
      expect((await app.request('GET', `/v1/documents/${docId}/transactions?per_page=201`, { key })).status).toBe(422);
      expect((await app.request('GET', `/v1/documents/${docId}/transactions?start_date=2024-13-45x`, { key })).status).toBe(422);
      const deal = await app.request('GET', `/v1/deals/${dealId}/transactions?per_page=200`, { key });
      const dates = deal.body.data.map((t: { date: string }) => t.date);
      expect(dates).toEqual([...dates].sort());
      expect(deal.body.data.every((t: { document_id: number }) => t.document_id === docId)).toBe(true);
    });
  });

  it('says what it inferred to read a statement: the readings on the document detail and the extraction record', async () => {
    // a statement over December -> January with yearless dates, its table continued over pages
    const item = await makeStatement(layout('continued_pages_carried_forward'), 11, 25);
    const dealId = await newDeal();
    const res = await upload(dealId, item);
    expect(res.status).toBe(201);
    await app.settle();
    const doc = (await app.request('GET', `/v1/documents/${res.body.id}`, { key })).body;
    expect(doc).toMatchObject({ status: 'completed', needs_review: false, transaction_count: item.truth.transactions!.length });
    expect(doc.readings).toContainEqual({
      question: 'year',
      chosen: `yearless dates placed by the statement period (${item.truth.periodStart} .. ${item.truth.periodEnd})`,
      candidates: 2,
      confidence: 0.95,
      evidence: 'the period runs across the new year: December dates take its first year, January dates its second',
      runner_up: null,
    });
    // the reading not taken, and why it lost, where there was one to weigh
    expect(doc.readings).toContainEqual(
      expect.objectContaining({
        question: 'sign',
        chosen: 'as printed',
        confidence: 1,
        runner_up: { chosen: 'reversed', why_not: `the running balance holds on 0 of ${item.truth.transactions!.length} rows under it` },
      }),
    );
    const extraction = (await app.request('GET', `/v1/documents/${res.body.id}/extraction`, { key })).body;
    expect(extraction.readings).toEqual(doc.readings);
    // the years the reading promised
    const txs = (await app.request('GET', `/v1/documents/${res.body.id}/transactions?per_page=200`, { key })).body.data;
    expect(txs.map((t: { date: string }) => t.date).sort()).toEqual(item.truth.transactions!.map((t) => t.date).sort());
  });

  describe('upload rules', () => {
    it('rejects a file whose content is not PDF/PNG/JPG/TIFF, whatever its name', async () => {
      const dealId = await newDeal();
      const res = await app.request('POST', `/v1/deals/${dealId}/documents`, {
        key,
        form: form([{ name: 'statement.pdf', bytes: new TextEncoder().encode('just text, not a pdf') }]),
      });
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('rejects an empty file, a missing file and an unknown document_type', async () => {
      const dealId = await newDeal();
      expect(
        (await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: form([{ name: 'e.pdf', bytes: new Uint8Array() }]) }))
          .status,
      ).toBe(422);
      const missing = await app.request('POST', `/v1/deals/${dealId}/documents`, {
        key,
        form: form([], { document_type: 'bank_statement' }),
      });
      expect(missing.status).toBe(422);
      expect(missing.body.errors[0].loc).toEqual(['body', 'file']);
      const badType = await upload(dealId, statement, { fields: { document_type: 'invoice' } });
      expect(badType.status).toBe(422);
      expect(badType.body.errors[0].loc).toEqual(['body', 'document_type']);
      const docs = await app.request('GET', `/v1/deals/${dealId}/documents`, { key });
      expect(docs.body.meta.total).toBe(0);
    });

    it('drops a NUL from a file name in either form (RFC 5987 filename* or plain), and refuses one in a field (422)', async () => {
      const dealId = await newDeal();
      const boundary = 'nul-boundary-7f3a';
      const multipart = (parts: { disposition: string; body: Uint8Array | string }[]) =>
        Buffer.concat([
          ...parts.flatMap((p) => [
            Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${p.disposition}\r\n\r\n`, 'latin1'),
            Buffer.from(p.body),
            Buffer.from('\r\n'),
          ]),
          Buffer.from(`--${boundary}--\r\n`),
        ]);
      const send = (path: string, parts: { disposition: string; body: Uint8Array | string }[]) =>
        fetch(`${app.url}${path}`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          body: multipart(parts),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as TestResponse['body'] }));
      const names = [];
      for (const disposition of [`name="file"; filename*=UTF-8''ev%00il.pdf`, 'name="file"; filename="ev\u0000il\u0001.pdf"']) {
        const res = await send(`/v1/deals/${dealId}/documents`, [{ disposition, body: statement.bytes }]);
        names.push([res.status, res.body.filename]);
      }
      expect(names).toEqual([
        [201, 'evil.pdf'],
        [201, 'evil.pdf'],
      ]);
      const bulk = await send(`/v1/deals/${dealId}/documents/bulk`, [
        { disposition: `name="files"; filename*=UTF-8''%00`, body: statement.bytes },
        { disposition: `name="files"; filename*=UTF-8''b%00.pdf`, body: second.bytes },
      ]);
      expect([bulk.status, bulk.body.uploaded.map((u: { filename: string }) => u.filename)]).toEqual([200, ['upload', 'b.pdf']]);
      const label = await send(`/v1/deals/${dealId}/documents`, [
        { disposition: 'name="label"', body: 'la\u0000bel' },
        { disposition: 'name="file"; filename="c.pdf"', body: statement.bytes },
      ]);
      expect([label.status, label.body.errors[0].loc, label.body.errors[0].type]).toEqual([422, ['body', 'label'], 'value_error.str.nul']);
      expect((await app.request('GET', `/v1/deals/${dealId}/documents`, { key })).body.meta.total).toBe(4);
    });

    it('rejects an upload to a deal of another organization or mode with 404', async () => {
      const other = await app.newOrg('Other Docs');
      const dealId = await newDeal();
      expect((await upload(dealId, statement, { k: other.api_key })).status).toBe(404);
      expect((await upload(dealId, statement, { k: org.test_api_key })).status).toBe(404);
    });

    it('accepts pnl_statement as an alias and a hint in the query', async () => {
      const dealId = await newDeal();
      const bytes = await taxReturn(new Rng(5));
      const res = await app.request('POST', `/v1/deals/${dealId}/documents?document_type=tax_return`, {
        key,
        form: form([{ name: 'return.pdf', bytes }]),
      });
      expect(res.status).toBe(201);
      await app.settle();
      const doc = (await app.request('GET', `/v1/documents/${res.body.id}`, { key })).body;
      expect(doc).toMatchObject({ status: 'completed', document_type: 'tax_return', transaction_count: 0 });
      const analysis = await app.request('GET', `/v1/documents/${res.body.id}/analysis`, { key });
      expect(analysis.status).toBe(409);
    });

    it('replays an upload with the same Idempotency-Key without a second document', async () => {
      const dealId = await newDeal();
      const headers = { 'Idempotency-Key': `upload-${dealId}` };
      const first = await upload(dealId, statement, { headers });
      const again = await upload(dealId, statement, { headers });
      expect(first.status).toBe(201);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
      expect((await app.request('GET', `/v1/deals/${dealId}/documents`, { key })).body.meta.total).toBe(1);
      await app.settle();
    });

    it('bulk: uploads the valid files and reports each failure with filename and reason', async () => {
      const dealId = await newDeal();
      const res = await app.request('POST', `/v1/deals/${dealId}/documents/bulk`, {
        key,
        form: form([
          { field: 'files', name: 'a.pdf', bytes: statement.bytes },
          { field: 'files', name: 'notes.pdf', bytes: new TextEncoder().encode('hello') },
          { field: 'files', name: 'b.pdf', bytes: second.bytes },
        ]),
      });
      expect(res.status).toBe(200);
      expect(res.body.uploaded.map((u: { filename: string }) => u.filename)).toEqual(['a.pdf', 'b.pdf']);
      expect(res.body.errors).toEqual([{ filename: 'notes.pdf', code: 'UNSUPPORTED_MEDIA_TYPE', detail: expect.any(String) }]);
      expect(res.body).toMatchObject({ total_uploaded: 2, total_errors: 1, deal_id: dealId });
      const formB = await app.request('POST', '/v1/bulk-upload', {
        key,
        form: form([{ field: 'files', name: 'c.pdf', bytes: second.bytes }], { deal_id: String(dealId) }),
      });
      expect(formB.body.total_uploaded).toBe(1);
      const noDeal = await app.request('POST', '/v1/bulk-upload', {
        key,
        form: form([{ field: 'files', name: 'c.pdf', bytes: second.bytes }]),
      });
      expect(noDeal.status).toBe(422);
      await app.settle();
      const deal = (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;
      expect(deal).toMatchObject({ status: 'ready', document_count: 3 });
      expect(deal.statements).toHaveLength(3);
      // generated statements of any year: those outside the look-back window are named stale, not analysed
      expect(deal.coverage.statement_count + deal.staleness.stale_statements.length).toBe(3);
    });
  });

  describe('size limits', () => {
    let small: TestApp;
    beforeAll(async () => {
      small = await TestApp.start({ MAX_UPLOAD_BYTES: '4096', MAX_BULK_FILES: '2' });
    });
    afterAll(() => small?.close());

    it('rejects an oversize file with 413 and keeps nothing of it', async () => {
      const o = await small.newOrg('Small');
      const dealId = (
        await small.request('POST', '/v1/deals', { key: o.api_key, body: { business_name: 'S', funding_amount_requested: 1 } })
      ).body.id;
      const res = await small.request('POST', `/v1/deals/${dealId}/documents`, {
        key: o.api_key,
        form: form([{ name: 'big.pdf', bytes: statement.bytes }]),
      });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
      const filesDir = join(small.running.config.dataDir, 'files');
      const leftovers = existsSync(filesDir)
        ? readdirSync(filesDir, { recursive: true }).filter((f) => !String(f).match(/^\d+(\/(live|test))?$/))
        : [];
      expect(leftovers).toEqual([]);
      expect((await small.request('GET', `/v1/deals/${dealId}/documents`, { key: o.api_key })).body.meta.total).toBe(0);
    });

    it('takes at most MAX_BULK_FILES files per bulk request and reports the rest', async () => {
      const o = await small.newOrg('Bulk limit');
      const dealId = (
        await small.request('POST', '/v1/deals', { key: o.api_key, body: { business_name: 'B', funding_amount_requested: 1 } })
      ).body.id;
      const tiny = new TextEncoder().encode('%PDF-1.4 tiny');
      const res = await small.request('POST', `/v1/deals/${dealId}/documents/bulk`, {
        key: o.api_key,
        form: form([1, 2, 3].map((i) => ({ field: 'files', name: `f${i}.pdf`, bytes: tiny }))),
      });
      expect(res.status).toBe(200);
      expect(res.body.total_uploaded).toBe(2);
      expect(res.body.errors).toEqual([{ filename: 'f3.pdf', code: 'TOO_MANY_FILES', detail: 'At most 2 files per request' }]);
      await small.settle();
    });
  });

  describe('state rules', () => {
    /** A document row in a given state, as a crashed or busy worker would leave it. */
    const seedDocument = (dealId: number, status: Document['status']) =>
      seed(app, org.organization.id, dealId, status, { bytes: statement.bytes });

    it('fails a corrupt PDF with PROCESSING_FAILED; reprocess only failed/cancelled; cancel only in flight', async () => {
      const dealId = await newDeal();
      const broken = new Uint8Array(statement.bytes.slice(0, 900));
      const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form: form([{ name: 'broken.pdf', bytes: broken }]) });
      await app.settle();
      const status = (await app.request('GET', `/v1/documents/${res.body.id}/status`, { key })).body;
      expect(status.status).toBe('failed');
      expect(status.error).toMatch(/^PROCESSING_FAILED: /);
      // every document failed: the deal says so (not `new`)
      expect((await app.request('GET', `/v1/deals/${dealId}`, { key })).body.status).toBe('failed');
      expect((await app.request('GET', `/v1/documents/${res.body.id}/transactions`, { key })).status).toBe(409);
      expect((await app.request('POST', `/v1/documents/${res.body.id}/cancel`, { key })).status).toBe(409);
      const again = await app.request('POST', `/v1/documents/${res.body.id}/reprocess`, { key });
      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({ document_id: res.body.id, document_status: 'uploaded' });
      await app.settle();
      expect((await app.request('GET', `/v1/documents/${res.body.id}`, { key })).body.status).toBe('failed');
      const all = await app.request('POST', `/v1/deals/${dealId}/reprocess-failed`, { key });
      expect(all.body.queued_document_ids).toEqual([res.body.id]);
      await app.settle();
    });

    it('refuses to reprocess or cancel a completed document (409) and reclassifies it through the pipeline', async () => {
      const dealId = await newDeal();
      const id = (await upload(dealId, second)).body.id;
      await app.settle();
      expect((await app.request('POST', `/v1/documents/${id}/reprocess`, { key })).status).toBe(409);
      const cancel = await app.request('POST', `/v1/documents/${id}/cancel`, { key });
      expect(cancel.status).toBe(409);
      expect(cancel.body.detail).toMatch(/being processed/);
      const bad = await app.request('POST', `/v1/documents/${id}/reclassify?document_type=invoice`, { key });
      expect(bad.status).toBe(422);
      const re = await app.request('POST', `/v1/documents/${id}/reclassify`, { key, body: { document_type: 'pnl_statement' } });
      expect(re.status).toBe(202);
      expect(re.body).toMatchObject({ new_document_type: 'profit_and_loss', document_type: 'profit_and_loss' });
      await app.settle();
      const doc = (await app.request('GET', `/v1/documents/${id}`, { key })).body;
      expect(doc.status).toBe('completed');
      const back = await app.request('POST', `/v1/documents/${id}/reclassify?document_type=bank_statement`, { key });
      expect(back.status).toBe(202);
      await app.settle();
      expect((await app.request('GET', `/v1/documents/${id}`, { key })).body).toMatchObject({
        status: 'completed',
        document_type: 'bank_statement',
      });
    });

    it('cancels an in-flight document; the stale job then changes nothing; reclassify is refused while processing', async () => {
      const dealId = await newDeal();
      const doc = await seedDocument(dealId, 'extracting_text');
      expect((await app.request('POST', `/v1/documents/${doc.id}/reclassify?document_type=tax_return`, { key })).status).toBe(409);
      expect((await app.request('GET', `/v1/documents/${doc.id}/analysis`, { key })).status).toBe(409);
      const res = await app.request('POST', `/v1/documents/${doc.id}/cancel`, { key });
      expect(res.status).toBe(200);
      expect(res.body.document_status).toBe('cancelled');
      await app.get(DocumentProcessor).run({ documentId: doc.id, attempt: 1 });
      expect((await app.request('GET', `/v1/documents/${doc.id}`, { key })).body.status).toBe('cancelled');
      const re = await app.request('POST', `/v1/documents/${doc.id}/reprocess`, { key });
      expect(re.status).toBe(202);
      await app.settle();
      expect((await app.request('GET', `/v1/documents/${doc.id}`, { key })).body.status).toBe('completed');
    });

    it('resumes documents left unfinished by a previous process', async () => {
      const dealId = await newDeal();
      const doc = await seedDocument(dealId, 'uploaded');
      const resumed = await app.get(DocumentProducer).recover();
      expect(resumed).toBeGreaterThanOrEqual(1);
      await app.settle();
      expect((await app.request('GET', `/v1/documents/${doc.id}`, { key })).body.status).toBe('completed');
      expect((await app.request('GET', `/v1/deals/${dealId}`, { key })).body.status).toBe('ready');
    });

    it('reports batch statuses, foreign ids as not_found, at most 100 ids', async () => {
      const other = await app.newOrg('Batch Other');
      const otherDeal = await newDeal(other.api_key);
      const foreign = (await upload(otherDeal, second, { k: other.api_key })).body.id;
      const dealId = await newDeal();
      const mine = (await upload(dealId, second)).body.id;
      await app.settle();
      const res = await app.request('POST', '/v1/documents/batch-status', { key, body: { document_ids: [mine, foreign] } });
      expect(res.body.documents).toEqual([
        expect.objectContaining({ id: mine, status: 'completed' }),
        { id: foreign, status: 'not_found', document_type: null, error: 'Document not found', updated_at: null },
      ]);
      expect(res.body.statuses).toEqual(res.body.documents);
      const tooMany = await app.request('POST', '/v1/documents/batch-status', {
        key,
        body: { document_ids: Array.from({ length: 101 }, (_, i) => i + 1) },
      });
      expect(tooMany.status).toBe(422);
    });
  });

  describe('corrections', () => {
    let docId: number;
    let txId: number;

    beforeAll(async () => {
      const dealId = await newDeal();
      docId = (await upload(dealId, second)).body.id;
      await app.settle();
      txId = (await app.request('GET', `/v1/documents/${docId}/transactions?type=debit`, { key })).body.data[0].id;
    });

    it('lets an admin correct fields with an audit row per changed field, oldest first', async () => {
      const before = (await app.request('GET', `/v1/documents/${docId}/transactions?type=debit`, { key })).body.data[0];
      const res = await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, {
        key,
        body: { amount: 125.5, category: 'revenue', correction_reason: 'Misread: this is a customer deposit  (see bank letter)' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        amount: 125.5,
        transaction_type: 'credit',
        category: 'revenue',
        correction_count: 3,
        corrected: true,
        corrected_by: `user:${org.user.id}`,
      });
      const second = await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, {
        key,
        body: { description: 'ACH DEPOSIT CUSTOMER', correction_reason: 'clarity' },
      });
      expect(second.body.correction_count).toBe(4);
      const trail = await app.request('GET', `/v1/transactions/${txId}/corrections`, { key });
      expect(trail.body.total).toBe(4);
      expect(trail.body.corrections.map((c: { field: string }) => c.field)).toEqual([
        'amount',
        'transaction_type',
        'category',
        'description',
      ]);
      expect(trail.body.corrections[0]).toMatchObject({
        old_value: before.amount.toFixed(2),
        new_value: '125.50',
        correction_reason: 'Misread: this is a customer deposit  (see bank letter)',
      });
      expect(trail.body.corrections[1]).toMatchObject({ old_value: 'debit', new_value: 'credit' });
    });

    it('requires a reason, a change, consistent sign and the admin or manager role', async () => {
      expect((await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, { key, body: { amount: 1 } })).status).toBe(422);
      expect(
        (
          await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, {
            key,
            body: { correction_reason: 'x'.repeat(501), amount: 1 },
          })
        ).status,
      ).toBe(422);
      expect(
        (await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, { key, body: { correction_reason: 'nothing' } })).status,
      ).toBe(422);
      expect(
        (
          await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, {
            key,
            body: { correction_reason: 'x', amount: -5, transaction_type: 'credit' },
          })
        ).status,
      ).toBe(422);
      const underwriter = await app.newUser(org.organization.id, 'underwriter');
      const denied = await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, {
        key: underwriter.api_key,
        body: { correction_reason: 'x', amount: 2 },
      });
      expect(denied.status).toBe(403);
      const manager = await app.newUser(org.organization.id, 'manager');
      expect(
        (
          await app.request('PATCH', `/v1/documents/${docId}/transactions/${txId}`, {
            key: manager.api_key,
            body: { correction_reason: 'ok', category: 'other' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await app.request('PATCH', `/v1/documents/${docId + 999}/transactions/${txId}`, {
            key,
            body: { correction_reason: 'x', amount: 2 },
          })
        ).status,
      ).toBe(404);
    });
  });

  describe("one screening, the deal's", () => {
    type Row = { id: number; category: string; screening_bucket: string | null };
    const rowsOf = async (docId: number) =>
      (await app.request('GET', `/v1/documents/${docId}/transactions?per_page=200`, { key })).body.data as Row[];

    it("writes the rows' flags and categories and the document's counts; a category a person corrected stays through a rescore and a new reading", async () => {
      const dealId = await newDeal();
      const docId = (await upload(dealId, second)).body.id;
      await app.settle();
      const deal = (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;
      const doc = (await app.request('GET', `/v1/documents/${docId}`, { key })).body;
      const rows = await rowsOf(docId);
      const flagged = rows.filter((r) => r.screening_bucket !== null).length;
      expect(doc.prescreen.flagged_transactions).toBe(flagged);
      expect(doc.analysis.screening_flags).toBe(flagged);
      expect(deal.screening.total_flags).toBe(flagged);
      const debit = rows.find((r) => r.category !== 'transfer')!;
      const res = await app.request('PATCH', `/v1/documents/${docId}/transactions/${debit.id}`, {
        key,
        body: { category: 'transfer', correction_reason: "Between the merchant's own accounts" },
      });
      expect(res.status).toBe(200);
      await app.settle();
      const others = (rows: Row[]) => rows.filter((r) => r.id !== debit.id).map((r) => [r.category, r.screening_bucket]);
      const rescored = await rowsOf(docId);
      expect(rescored.find((r) => r.id === debit.id)!.category).toBe('transfer');
      expect(others(rescored)).toEqual(others(rows));
      expect((await app.request('POST', `/v1/documents/${docId}/reclassify?document_type=bank_statement`, { key })).status).toBe(202);
      await app.settle();
      const reread = await rowsOf(docId);
      expect(reread.find((r) => r.id === debit.id)!.category).toBe('transfer');
      expect(others(reread)).toEqual(others(rows));
      expect((await app.request('GET', `/v1/documents/${docId}`, { key })).body.prescreen.flagged_transactions).toBe(
        reread.filter((r) => r.screening_bucket !== null).length,
      );
    });
  });

  describe('correct, then rescore, without losing the correction', () => {
    const eventCount = (type: string, dealId: number) => app.get(Database).system().count(DomainEventRecord, { type, dealId });
    const dealOf = async (dealId: number) => (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;
    const firstDebit = async (docId: number) =>
      (await app.request('GET', `/v1/documents/${docId}/transactions?type=debit`, { key })).body.data[0] as {
        id: number;
        amount: number;
        description: string;
      };
    let dealId: number;
    let docId: number;
    let tx: { id: number; amount: number; description: string };
    let before: any;

    beforeAll(async () => {
      dealId = await newDeal();
      docId = (await upload(dealId, second)).body.id;
      await app.settle();
      before = await dealOf(dealId);
      tx = await firstDebit(docId);
    });

    it('a correction rescores the deal at once: figures, screening and recommendation, with the events of an analysis', async () => {
      const generated = await eventCount('recommendation.generated', dealId);
      const ready = await eventCount('deal.ready', dealId);
      const res = await app.request('PATCH', `/v1/documents/${docId}/transactions/${tx.id}`, {
        key,
        body: { amount: 5000, correction_reason: 'A customer deposit read as a debit' },
      });
      expect(res.status).toBe(200);
      const after = await dealOf(dealId);
      expect(after.financials.total_deposits).toBeCloseTo(before.financials.total_deposits + 5000, 2);
      expect(after.financials.total_withdrawals).toBeCloseTo(before.financials.total_withdrawals + tx.amount, 2);
      expect(await eventCount('recommendation.generated', dealId)).toBe(generated + 1);
      expect(await eventCount('deal.ready', dealId)).toBe(ready + 1);
      const flagged = await app.request('GET', `/v1/deals/${dealId}/transactions?flagged=true&per_page=200`, { key });
      expect(flagged.body.meta.total).toBe(after.screening.total_flags);
    });

    it('POST /deals/{id}/rescore recomputes from the stored transactions, idempotently', async () => {
      const generated = await eventCount('recommendation.generated', dealId);
      const res = await app.request('POST', `/v1/deals/${dealId}/rescore`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', deal_id: dealId, rescored: false, deal: { id: dealId, status: 'ready' } });
      expect(res.body.deal.financials.total_deposits).toBeCloseTo(before.financials.total_deposits + 5000, 2);
      expect(await eventCount('recommendation.generated', dealId)).toBe(generated);
      const reviewer = await app.newUser(org.organization.id, 'reviewer');
      expect((await app.request('POST', `/v1/deals/${dealId}/rescore`, { key: reviewer.api_key })).status).toBe(403);
      expect((await app.request('POST', `/v1/deals/${await newDeal()}/rescore`, { key })).status).toBe(409);
      expect((await app.request('POST', '/v1/deals/999999/rescore', { key })).status).toBe(404);
    });

    it('reprocess of a completed document is 409 and says how to rescore', async () => {
      const res = await app.request('POST', `/v1/documents/${docId}/reprocess`, { key });
      expect(res.status).toBe(409);
      expect(res.body.detail).toContain(`POST /v1/deals/${dealId}/rescore`);
    });

    it('a document read again (reclassify) applies its corrections again and keeps their audit trail', async () => {
      const trail = (await app.request('GET', `/v1/transactions/${tx.id}/corrections`, { key })).body;
      expect(trail.total).toBe(2);
      const re = await app.request('POST', `/v1/documents/${docId}/reclassify?document_type=bank_statement`, { key });
      expect(re.status).toBe(202);
      await app.settle();
      const kept = (await app.request('GET', `/v1/documents/${docId}/transactions?per_page=200`, { key })).body.data.find(
        (t: { id: number }) => t.id === tx.id,
      );
      expect(kept).toMatchObject({ amount: 5000, transaction_type: 'credit', correction_count: 2, corrected: true });
      expect((await app.request('GET', `/v1/transactions/${tx.id}/corrections`, { key })).body).toEqual(trail);
      const after = await dealOf(dealId);
      expect(after.financials.total_deposits).toBeCloseTo(before.financials.total_deposits + 5000, 2);
      expect((await app.request('GET', `/v1/documents/${docId}`, { key })).body.transaction_count).toBe(
        before.statements[0].transaction_count,
      );
    });

    it('read as another type, the rows go but the audit trail stays', async () => {
      expect((await app.request('POST', `/v1/documents/${docId}/reclassify?document_type=tax_return`, { key })).status).toBe(202);
      await app.settle();
      const doc = (await app.request('GET', `/v1/documents/${docId}`, { key })).body;
      expect(doc).toMatchObject({ status: 'completed', document_type: 'tax_return', transaction_count: 0 });
      const extraction = (await app.request('GET', `/v1/documents/${docId}/extraction`, { key })).body;
      expect(extraction.warnings).toContainEqual(
        expect.stringMatching(new RegExp(`^a correction could not be applied again: .*transaction ${tx.id} .*its audit trail is kept$`)),
      );
      const trail = await app.request('GET', `/v1/transactions/${tx.id}/corrections`, { key });
      expect(trail.status).toBe(200);
      expect(trail.body.corrections.map((c: { field: string }) => c.field)).toEqual(['amount', 'transaction_type']);
    });
  });

  describe('isolation', () => {
    it("hides another organization's documents and transactions on every route (404)", async () => {
      const other = await app.newOrg('Snoop');
      const dealId = await newDeal();
      const id = (await upload(dealId, second)).body.id;
      await app.settle();
      const txId = (await app.request('GET', `/v1/documents/${id}/transactions`, { key })).body.data[0].id;
      const routes: [string, string, unknown?][] = [
        ['GET', `/v1/documents/${id}`],
        ['GET', `/v1/documents/${id}/status`],
        ['GET', `/v1/documents/${id}/extraction`],
        ['GET', `/v1/documents/${id}/analysis`],
        ['GET', `/v1/documents/${id}/pdf`],
        ['GET', `/v1/documents/${id}/download`],
        ['GET', `/v1/documents/${id}/transactions`],
        ['GET', `/v1/deals/${dealId}/documents`],
        ['GET', `/v1/deals/${dealId}/transactions`],
        ['POST', `/v1/documents/${id}/cancel`],
        ['POST', `/v1/documents/${id}/reprocess`],
        ['POST', `/v1/documents/${id}/reclassify?document_type=tax_return`],
        ['POST', `/v1/deals/${dealId}/reprocess-failed`],
        ['PATCH', `/v1/documents/${id}/transactions/${txId}`, { correction_reason: 'x', amount: 1 }],
        ['GET', `/v1/transactions/${txId}/corrections`],
      ];
      for (const [method, path, body] of routes) {
        for (const k of [other.api_key, org.test_api_key]) {
          const res = await app.request(method, path, { key: k, body });
          expect([method, path, res.status]).toEqual([method, path, 404]);
        }
      }
    });
  });
});
