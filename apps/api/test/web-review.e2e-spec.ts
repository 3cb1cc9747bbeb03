import type { Browser, Page } from 'playwright-core';
import { PDFDocument } from 'pdf-lib';
import { Ledgerlens } from '@ledgerlens/sdk';
import { User } from '../src/modules/auth/auth.entities';
import { Database } from '../src/platform/database/database.service';
import { TestApp } from './support/harness';
import { describeWith } from './support/system-tools';
import * as web from './support/web-browser';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeModel } from '../../../tools/corpus/model';
import { hashSeed, Rng } from '../../../tools/corpus/rng';
import { makeEdit } from '../../../tools/bench/tamper-edits';
import { parseStatementFile } from '@ledgerlens/statements';

/**
 * The document review page (apps/web, /app/deals/:id/documents/:id) in headless Chromium against a
 * real server on the embedded database, with a real statement PDF read by packages/statements and
 * drawn by pdf.js: the row <-> page highlight where `source.boxes` says, the keyboard, a correction
 * that moves the deal's totals, the roles, axe, screenshots (test-output/web/review-*.png), the
 * clicks of the review path, and an edited statement's signs of editing boxed on its page.
 */
interface Row {
  id: number;
  amount: number;
  transaction_type: string;
  description: string;
  source: { page: number; boxes: number[][] } | null;
}

/** A sign of editing as the API lists it on the document. */
interface Finding {
  page: number | null;
  boxes: number[][];
  severity: string;
  message: string;
}

describeWith('chromium')('the document review page in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let admin: Awaited<ReturnType<TestApp['newOrg']>>;
  let client: Ledgerlens;
  let dealId: number;
  let documentId: number;
  let pdfBytes: Uint8Array;
  let misprintedAmount: number;
  let pageSizes: { width: number; height: number }[];

  beforeAll(async () => {
    web.buildWebApp();
    app = await TestApp.start();
    admin = await app.newOrg('Review Funding');
    client = new Ledgerlens({ baseUrl: app.url, apiKey: admin.api_key });
    // a real two-page statement, read by the server's parser like any upload, with one deposit on
    // page 2 printed 1,000.00 below what its running balance says: the statement needs review
    const layout = LAYOUTS.find((l) => l.name === 'signed_single_column')!;
    const rng = new Rng(hashSeed(31, layout.name, 90));
    const model = makeModel(rng, { transactions: 90, crossYear: false });
    const misprinted = model.transactions.slice(60).find((t) => t.amount > 0)!;
    misprinted.amount = Math.round((misprinted.amount - 1000) * 100) / 100;
    misprintedAmount = misprinted.amount;
    pdfBytes = (await layout.render(model, rng)).bytes;
    const pdf = await PDFDocument.load(pdfBytes);
    pageSizes = pdf.getPages().map((p) => p.getSize());
    expect(pageSizes.length).toBeGreaterThan(1);
    const deal = await client.deals.create({ business_name: 'Juniper Florist LLC', funding_amount_requested: 40000 });
    dealId = deal.id;
    documentId = (await client.documents.upload(deal.id, Buffer.from(pdfBytes), { filename: 'juniper-march.pdf' })).id;
    await client.deals.waitUntilReady(deal.id, { timeoutMs: 150_000 });
    browser = await web.launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = (viewport = web.VIEWPORTS[0]) => web.openPage(browser, app.url, viewport);
  const signIn = (page: Page, email: string, password: string) => web.signIn(page, app.url, email, password);

  async function rowsOf(): Promise<Row[]> {
    const rows: Row[] = [];
    for await (const t of client.transactions.listAllForDocument(documentId)) rows.push(t as Row);
    return rows;
  }

  /** The selected row's first box on the screen, against where its source box says, scaled to the drawn page. */
  async function expectHighlightAt(page: Page, row: Row): Promise<void> {
    const canvas = page.locator(`canvas[data-rendered="${row.source!.page}"]`);
    await canvas.waitFor();
    const drawn = (await canvas.boundingBox())!;
    const scale = drawn.width / pageSizes[row.source!.page - 1].width;
    expect(drawn.height / scale).toBeCloseTo(pageSizes[row.source!.page - 1].height, 0);
    const boxes = page.locator(`.box-selected[data-box-for="${row.id}"]`);
    await expect(boxes.count()).resolves.toBe(row.source!.boxes.length);
    const [x0, y0, x1, y1] = row.source!.boxes[0];
    const box = (await boxes.first().boundingBox())!;
    expect(Math.abs(box.x - (drawn.x + x0 * scale))).toBeLessThan(1.5);
    expect(Math.abs(box.y - (drawn.y + y0 * scale))).toBeLessThan(1.5);
    expect(Math.abs(box.width - (x1 - x0) * scale)).toBeLessThan(1.5);
    expect(Math.abs(box.height - (y1 - y0) * scale)).toBeLessThan(1.5);
  }

  const selectedRow = (page: Page) => page.locator('[data-testid=rows] tbody tr[aria-selected=true]');
  /** The rows the list has (it draws only those in sight: aria-rowcount counts them all, with its header row). */
  const rowCount = async (page: Page) =>
    Number(await page.getByRole('grid', { name: 'Rows read from the statement' }).getAttribute('aria-rowcount')) - 1;

  it('opens a statement from the deal page, highlights rows on the page and back, moves with the keyboard, fixes an amount: the totals follow', async () => {
    const rows = await rowsOf();
    // the row to fix: the misprinted deposit, on the second page (selecting it turns the page)
    const target = rows.find((r) => r.amount === misprintedAmount)!;
    expect(target.source).toMatchObject({ page: 2 });
    expect(target.source!.boxes.length).toBeGreaterThan(0);
    expect((await client.documents.get(documentId)).needs_review).toBe(true);
    const index = rows.findIndex((r) => r.id === target.id);
    const next = rows[index + 1];
    expect(next?.source).toBeTruthy();
    const before = (await client.deals.get(dealId)).financials!.total_deposits;

    const { context, page, problems } = await open();
    let loads = 0;
    page.on('load', () => loads++);
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script' || /\.js$/.test(r.url())) scripts.push(new URL(r.url()).pathname);
    });
    const pdfjs = () => scripts.filter((path) => /^\/app\/assets\/pdf(\.worker\.min)?-[\w-]+\.js$/.test(path));
    await signIn(page, admin.user.email, admin.password);
    await page.goto(`${app.url}/app/deals/${dealId}`);
    await page.getByRole('heading', { name: 'Juniper Florist LLC' }).waitFor();
    await page.getByRole('heading', { name: 'Financials' }).waitFor();
    const startClicks = await web.clicks(page);
    loads = 0;

    // pdf.js is not part of the pipeline or the deal page
    expect(scripts.length).toBeGreaterThan(0);
    expect(pdfjs()).toEqual([]);

    // one click from the deal's statements list
    await page.locator('a.file-name', { hasText: 'juniper-march.pdf' }).click(); // the per-statement table's link (the authenticity panel links it too)
    await page.getByRole('heading', { name: 'juniper-march.pdf', level: 1 }).waitFor();
    expect(page.url()).toBe(`${app.url}/app/deals/${dealId}/documents/${documentId}`);
    await page.locator('canvas[data-rendered="1"]').waitFor({ timeout: 60_000 });
    await expect(rowCount(page)).resolves.toBe(rows.length);
    // a virtualised list: the rows in sight (and a few around) are drawn, not all 90
    const drawn = await page.locator('[data-testid=rows] tbody tr[data-row-id]').count();
    expect(drawn).toBeGreaterThan(10);
    expect(drawn).toBeLessThan(rows.length);
    // ... it came with the review page: its module and its worker, both hashed files of this server
    expect(pdfjs()).toHaveLength(2);
    await page.getByRole('heading', { name: `Page 1 of ${pageSizes.length}` }).waitFor();

    // flagged in place: the document's reasons above, the broken row in the list and on its page
    await expect(page.getByRole('list', { name: 'Why this statement needs review' }).innerText()).resolves.toMatch(
      /does not reconcile[\s\S]*running balance breaks at row \d+ on page 2/,
    );
    const warned = page.locator('[data-testid=rows] tbody tr.warned');
    // far down the list: the flagged rows are one click away
    await page.getByRole('button', { name: 'Next flagged row (1)' }).click();
    await expect(selectedRow(page).getAttribute('data-row-id')).resolves.toBe(String(target.id));
    await expect(warned.count()).resolves.toBe(1);
    await expect(warned.getAttribute('data-row-id')).resolves.toBe(String(target.id));
    await expect(warned.getByRole('list', { name: 'Row warnings' }).innerText()).resolves.toContain('The running balance does not follow');

    // row -> page: the row's page is shown and its boxes drawn where source.boxes says
    await page.locator(`[data-row-id="${target.id}"]`).click();
    await page.getByRole('heading', { name: `Page 2 of ${pageSizes.length}` }).waitFor();
    await expectHighlightAt(page, target);
    await expect(page.locator(`.box-warned[data-box-for="${target.id}"]`).count()).resolves.toBe(target.source!.boxes.length);

    // keyboard: down to the next row (highlighted on its page), up again
    await page.keyboard.press('ArrowDown');
    await expect(selectedRow(page).getAttribute('data-row-id')).resolves.toBe(String(next.id));
    await expectHighlightAt(page, next);
    await page.keyboard.press('ArrowUp');
    await expect(selectedRow(page).getAttribute('data-row-id')).resolves.toBe(String(target.id));
    // Enter edits, Escape cancels (and the list keeps the keyboard)
    await page.keyboard.press('Enter');
    const form = page.getByRole('form', { name: 'Fix the row' });
    await form.waitFor();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'detached' });
    await page.keyboard.press('ArrowDown');
    await expect(selectedRow(page).getAttribute('data-row-id')).resolves.toBe(String(next.id));

    // page -> row: a click on the page's box selects the row
    await page.locator(`.box[data-box-for="${target.id}"]`).first().click();
    await expect(selectedRow(page).getAttribute('data-row-id')).resolves.toBe(String(target.id));

    // the page is drawn again to fit a narrower window, the boxes with it
    for (const viewport of web.VIEWPORTS) {
      await page.setViewportSize(viewport);
      const holder = (await page.locator('.pdf-holder').boundingBox())!;
      await page.locator(`canvas[data-rendered="2"][data-width="${Math.round(holder.width - 2)}"]`).waitFor(); // 1px border each side
      await expectHighlightAt(page, target);
      await web.shoot(page, 'review');
    }
    await page.setViewportSize(web.VIEWPORTS[0]);
    await web.expectAccessible(page, 'review');

    // fix the amount with a reason (Enter opens the form)
    await page.keyboard.press('Enter');
    await form.waitFor();
    const corrected = Math.round((target.amount + 1000) * 100) / 100;
    await expect(form.getByTestId('chain-check').innerText()).resolves.toMatch(/still breaks at 1 row\./);
    await form.getByLabel('Amount (USD)').fill(corrected.toFixed(2));
    // the chain is checked on the amount being typed, before it is saved: the mark goes at once
    await expect(form.getByTestId('chain-check').innerText()).resolves.toBe('With this amount the running balance holds.');
    await expect(warned.count()).resolves.toBe(0);
    await expect(form.getByRole('button', { name: 'Save correction' }).isDisabled()).resolves.toBe(true);
    await form.getByLabel('Reason (required)').fill('Misread: the statement prints the larger amount');
    await web.expectAccessible(page, 'review (fixing)');
    await web.shoot(page, 'review-fix');
    await form.getByRole('button', { name: 'Save correction' }).click();
    await form.waitFor({ state: 'detached' });
    const fixed = page.locator(`[data-row-id="${target.id}"]`);
    await fixed.getByText('Corrected').waitFor();
    // the balance chain, checked again in the page, holds now
    await expect(warned.count()).resolves.toBe(0);
    await expect(fixed.locator('td.num').innerText()).resolves.toBe(
      `$${corrected.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`,
    );
    // the statement adds up now: a person marks it reviewed (who and when, shown in place)
    await page.getByRole('button', { name: 'Mark reviewed' }).click();
    await page.getByText(/^Reviewed .* by user:/).waitFor();
    await expect(page.getByRole('button', { name: 'Mark reviewed' }).count()).resolves.toBe(0);
    const used = (await web.clicks(page)) - startClicks;
    console.log(`review path (open the statement, find the row, fix it, mark reviewed): ${used} clicks`);
    expect(await client.documents.get(documentId)).toMatchObject({ needs_review: false, reviewed_by: `user:${admin.user.id}` });
    expect(used).toBeLessThanOrEqual(8);

    // the server kept it with its reason, and the deal's report recomputed
    const trail = await client.transactions.corrections(target.id);
    expect(JSON.stringify(trail)).toContain('Misread: the statement prints the larger amount');
    const after = (await client.deals.get(dealId)).financials!.total_deposits;
    expect(after - before).toBeCloseTo(1000, 2);
    // the deal page (cached before) shows the new totals without a reload
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Juniper Florist LLC' }).click();
    const deposits = page.locator('.grid-kv div', { hasText: 'Total deposits' }).locator('dd');
    await expect(deposits.innerText()).resolves.toBe(`$${Math.round(after).toLocaleString('en-US')}`);
    expect(Math.round(after)).not.toBe(Math.round(before));
    expect(loads).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);

  it('from the review queue: adds a missed row (the chain re-checks at once), deletes it again, fixes a date', async () => {
    const deal = await client.deals.create({ business_name: 'Queue Bakery LLC', funding_amount_requested: 20000 });
    const doc = (await client.documents.upload(deal.id, Buffer.from(pdfBytes), { filename: 'queue-march.pdf' })).id;
    await client.deals.waitUntilReady(deal.id, { timeoutMs: 150_000 });
    expect((await client.documents.get(doc)).needs_review).toBe(true);
    const before = (await client.deals.get(deal.id)).financials!.total_deposits;
    const { context, page, problems } = await open(web.VIEWPORTS[1]);
    await signIn(page, admin.user.email, admin.password);
    await page.getByRole('link', { name: 'Review queue' }).click();
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    const item = page.locator(`tr[data-document-id="${doc}"]`);
    await expect(item.innerText()).resolves.toMatch(/queue-march\.pdf[\s\S]*Queue Bakery LLC[\s\S]*running balance breaks/);
    await web.expectAccessible(page, 'review queue');
    await web.shoot(page, 'review-queue');
    await item.getByRole('link', { name: 'queue-march.pdf' }).click();
    await page.locator('canvas[data-rendered="1"]').waitFor({ timeout: 60_000 });
    const rows = page.locator('[data-testid=rows] tbody tr[data-row-id]');
    const count = await rowCount(page);
    const warned = page.locator('[data-testid=rows] tbody tr.warned');
    const warnedBefore = await warned.count();

    // a missed deposit after the third row: the rows after it no longer follow, at once
    const third = rows.nth(2);
    const thirdId = Number(await third.getAttribute('data-row-id'));
    await third.click();
    await page.getByRole('button', { name: 'Add a missed row after it' }).click();
    const add = page.getByRole('form', { name: /Add a missed row after/ });
    await add.getByLabel('Amount (USD)').fill('250.00');
    await add.getByLabel('Description').fill('MOBILE DEPOSIT 7731');
    await add.getByLabel('Reason (required)').fill('Printed across the fold; the reader missed it');
    await web.expectAccessible(page, 'review (adding)');
    await web.shoot(page, 'review-add');
    await add.getByRole('button', { name: 'Add row' }).click();
    await add.waitFor({ state: 'detached' });
    const added = page.locator('[data-testid=rows] tbody tr', { hasText: 'MOBILE DEPOSIT 7731' });
    await added.getByText('Added').waitFor();
    await expect(rowCount(page)).resolves.toBe(count + 1);
    await expect(selectedRow(page).getAttribute('data-row-id')).resolves.toBe(await added.getAttribute('data-row-id'));
    const order = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-row-id'))));
    expect(order.indexOf(Number(await added.getAttribute('data-row-id')))).toBe(order.indexOf(thirdId) + 1);
    await expect(warned.count()).resolves.toBe(warnedBefore + 1);
    expect((await client.deals.get(deal.id)).financials!.total_deposits).toBeCloseTo(before + 250, 2);

    // deleted again, with a reason: the chain is as it was, the figures too
    await page.getByRole('button', { name: 'Delete this row' }).click();
    const del = page.getByRole('form', { name: /Delete the row of/ });
    await del.getByLabel('Reason (required)').fill('Added by mistake: it is on the next statement');
    await del.getByRole('button', { name: 'Delete row' }).click();
    await del.waitFor({ state: 'detached' });
    await expect(rowCount(page)).resolves.toBe(count);
    await expect(warned.count()).resolves.toBe(warnedBefore);
    expect((await client.deals.get(deal.id)).financials!.total_deposits).toBeCloseTo(before, 2);

    // a date fixed: a calendar date only (the form refuses to save another)
    await rows.first().click();
    await page.getByRole('button', { name: 'Fix this row' }).click();
    const fix = page.getByRole('form', { name: 'Fix the row' });
    const firstId = Number(await rows.first().getAttribute('data-row-id'));
    const stored = (await client.transactions.listForDocument(doc, { per_page: 1 })).data[0];
    expect(stored.id).toBe(firstId);
    const date = `${stored.date.slice(0, 8)}${stored.date.slice(8) === '01' ? '02' : '01'}`;
    await fix.getByLabel('Date').fill(date);
    await fix.getByLabel('Reason (required)').fill('Day misread');
    await fix.getByRole('button', { name: 'Save correction' }).click();
    await fix.waitFor({ state: 'detached' });
    const trail = await client.transactions.corrections(firstId);
    expect(trail.corrections).toEqual([expect.objectContaining({ field: 'date', old_value: stored.date, new_value: date })]);
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);

  it("a reviewer sees no edit control; a correction the API refuses shows the API's 403", async () => {
    const reviewer = await app.newUser(admin.organization.id, 'reviewer');
    const { context, page, problems } = await open(web.VIEWPORTS[1]);
    await signIn(page, reviewer.user.email, reviewer.password);
    await page.goto(`${app.url}/app/deals/${dealId}/documents/${documentId}`);
    await page.locator('canvas[data-rendered="1"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=rows] tbody tr[data-row-id]').first().click();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('form', { name: 'Fix the row' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Fix this row' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /Add a missed row|Delete this row|Mark reviewed/ }).count()).resolves.toBe(0);
    await context.close();

    // a manager lowered to underwriter while the form is open: the API refuses, the page says why
    const manager = await app.newUser(admin.organization.id, 'manager');
    const second = await open(web.VIEWPORTS[1]);
    await signIn(second.page, manager.user.email, manager.password);
    await second.page.goto(`${app.url}/app/deals/${dealId}/documents/${documentId}`);
    await second.page.locator('canvas[data-rendered="1"]').waitFor({ timeout: 60_000 });
    const first = second.page.locator('[data-testid=rows] tbody tr[data-row-id]').first();
    const firstId = Number(await first.getAttribute('data-row-id'));
    const stored = (await rowsOf()).find((r) => r.id === firstId)!;
    await first.click();
    await second.page.getByRole('button', { name: 'Fix this row' }).click();
    const form = second.page.getByRole('form', { name: 'Fix the row' });
    await form.getByLabel('Description').fill('RENAMED BY A MANAGER');
    await form.getByLabel('Reason (required)').fill('Typo');
    await app.get(Database).system().nativeUpdate(User, { id: manager.user.id }, { role: 'underwriter' });
    await form.getByRole('button', { name: 'Save correction' }).click();
    await expect(form.getByRole('alert').innerText()).resolves.toMatch(/Not allowed \(403\)[\s\S]*Only an admin or a manager/);
    await web.shoot(second.page, 'review-refused');
    await web.expectAccessible(second.page, 'review (refused)');
    expect((await rowsOf()).find((r) => r.id === firstId)!.description).toBe(stored.description);
    expect([...problems, ...second.problems]).toEqual([]);
    await second.context.close();
  }, 180_000);

  it("an edited statement: its signs of editing listed with the document's risk, each boxed on its page where the API says; a click turns to the page and marks the box in sight", async () => {
    // the first statement with a deposit in the lower half of page 2 covered by a white box and
    // written again (the tamper benchmark's edit, made with pdf-lib as a fraudster would): below what
    // the page's pane shows at first
    const parsed = await parseStatementFile(pdfBytes, { ocr: false, receivedAt: new Date(Date.UTC(2026, 0, 1)) });
    const low = (e: Awaited<ReturnType<typeof makeEdit>>) => e?.page === 2 && e.boxes[0][1] > 0.55 * pageSizes[1].height;
    let edit: Awaited<ReturnType<typeof makeEdit>> = null;
    for (let seed = 1; seed < 80 && !low(edit); seed++) edit = await makeEdit(pdfBytes, parsed, 'white_box', seed);
    expect(low(edit)).toBe(true);
    const deal = await client.deals.create({ business_name: 'Aspen Bakery LLC', funding_amount_requested: 25000 });
    const docId = (await client.documents.upload(deal.id, Buffer.from(edit!.bytes), { filename: 'aspen-march.pdf' })).id;
    await client.deals.waitUntilReady(deal.id, { timeoutMs: 150_000 });
    const doc = await client.documents.get(docId);
    const findings: Finding[] = doc.tamper_findings ?? [];
    expect(doc.pdf_risk_level).toBe('high');
    // the finding over the edited amount, on page 2
    const [ex0, ey0, ex1, ey1] = edit!.boxes[0];
    const at = findings.findIndex((f) => f.page === 2 && f.boxes.some(([x0, y0, x1, y1]) => x0 < ex1 && ex0 < x1 && y0 < ey1 && ey0 < y1));
    expect(at).toBeGreaterThanOrEqual(0);
    const named = findings[at];

    const { context, page, problems } = await open(web.VIEWPORTS[1]);
    await signIn(page, admin.user.email, admin.password);
    await page.goto(`${app.url}/app/deals/${deal.id}/documents/${docId}`);
    await page.locator('canvas[data-rendered="1"]').waitFor({ timeout: 60_000 });
    const section = page.getByRole('region', { name: /Signs of editing/ });
    await expect(section.getByRole('heading').innerText()).resolves.toBe('Signs of editing (high risk): each is boxed on its page');
    const items = section.getByRole('listitem');
    await expect(items.count()).resolves.toBe(findings.length);
    const texts = (await items.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
    expect(texts).toEqual(findings.map((f) => `${f.severity} ${f.message}`));
    // page 1 shows the boxes of the findings on page 1 only
    const onFirst = findings.filter((f) => f.page === 1).reduce((n, f) => n + f.boxes.length, 0);
    await expect(page.locator('[data-evidence]').count()).resolves.toBe(onFirst);

    const button = section.getByRole('button', { name: named.message });
    await button.click();
    await page.locator('canvas[data-rendered="2"]').waitFor({ timeout: 60_000 });
    await expect(button.getAttribute('aria-pressed')).resolves.toBe('true');
    const marked = page.locator('.box-evidence-selected');
    await expect(marked.count()).resolves.toBe(named.boxes.length);
    // where the API's box says, scaled to the drawn page, and in sight in the page's scrolling pane
    const canvas = (await page.locator('canvas[data-rendered="2"]').boundingBox())!;
    const scale = canvas.width / pageSizes[1].width;
    const hit = named.boxes.findIndex(([x0, y0, x1, y1]) => x0 < ex1 && ex0 < x1 && y0 < ey1 && ey0 < y1);
    const [x0, y0, x1, y1] = named.boxes[hit];
    const box = (await marked.nth(hit).boundingBox())!;
    expect(Math.abs(box.x - (canvas.x + x0 * scale))).toBeLessThan(1.5);
    expect(Math.abs(box.y - (canvas.y + y0 * scale))).toBeLessThan(1.5);
    expect(Math.abs(box.width - (x1 - x0) * scale)).toBeLessThan(1.5);
    expect(Math.abs(box.height - (y1 - y0) * scale)).toBeLessThan(1.5);
    const pane = (await page.locator('.pdf-scroll').boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(pane.y);
    expect(box.y + box.height).toBeLessThanOrEqual(pane.y + pane.height);
    await expect(marked.nth(hit).getAttribute('title')).resolves.toBe(named.message);
    // long sentences wrap: nothing reaches past the window's width
    await expect(page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).resolves.toBeLessThanOrEqual(0);
    await web.shoot(page, 'review-tamper');
    await web.expectAccessible(page, 'review (signs of editing)');
    expect(problems).toEqual([]);
    await context.close();
  }, 300_000);
});
