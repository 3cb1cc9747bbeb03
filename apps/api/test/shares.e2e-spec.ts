import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ShareLink } from '../src/modules/shares/shares.entities';
import { Clock } from '../src/platform/clock/clock';
import { Database } from '../src/platform/database/database.service';
import { TestApp } from './support/harness';
import { describeWith, systemTool } from './support/system-tools';
import { newReadyDeal, underwritingStatements } from './support/ready-deal';
import { ROOT } from './support/web-browser';
import { unreconciledStatement } from './support/unreconciled-statement';
import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';

const DEAL_FIELDS = [
  'affordability',
  'ai_summary',
  'avg_daily_balance',
  'avg_monthly_deposits',
  'business_name',
  'dba_name',
  'decision',
  'ending_balance',
  'entity_type',
  'funding_amount_requested',
  'health_score',
  'id',
  'industry',
  'lender_positions',
  'max_advance',
  'months_covered',
  'nsf_count',
  'own_transfers',
  'paper_grade',
  'recommendation',
  'report_date',
  'revenue',
  'total_deposits',
  'warnings',
];
const HOUR = 3_600_000;
const usd = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: digits, maximumFractionDigits: digits });
const shortDate = (iso: string) =>
  new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .trim();
/** The cells of each row of the table labelled `label` on the page (thead, tbody, tfoot in order). */
function tableRows(html: string, label: string): string[][] {
  const start = html.indexOf(`<table aria-label="${label}">`);
  if (start < 0) throw new Error(`no table ${label}`);
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) => text(c[1])),
  );
}
/** Debian's chromium: without it these browser tests are skipped, with one line saying so (CI installs it). */
const CHROMIUM = systemTool('chromium') ?? '/usr/bin/chromium';

describe('share links', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let key: string;
  let dealId: number;
  let now: number;

  beforeAll(async () => {
    // A long window: the per-token limit test cannot straddle a window boundary.
    app = await TestApp.start({ RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_STANDARD: '100000', RATE_LIMIT_WRITE: '100000' });
    org = await app.newOrg('Share Org');
    key = org.api_key;
    dealId = (await newReadyDeal(app, key, { businessName: 'Harbor Coffee Roasters LLC', recommend: true })).id;
    now = Date.parse('2026-03-02T10:00:00Z');
    jest.spyOn(app.get(Clock), 'now').mockImplementation(() => new Date(now));
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const create = (body: Record<string, unknown> = {}) => app.request('POST', `/v1/deals/${dealId}/share`, { key, body });
  const view = (token: string, password?: string) =>
    app.request('GET', `/v1/share/${token}`, { headers: password === undefined ? {} : { 'X-Share-Password': password } });

  it('Form A create: 201, shr_ token, url of the human page, view_count 0; several links per deal', async () => {
    const a = await create({ label: 'For the broker', expires_at: '2026-03-09T10:00:00Z' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      deal_id: dealId,
      label: 'For the broker',
      expires_at: '2026-03-09T10:00:00.000Z',
      view_count: 0,
      password_protected: false,
      active: true,
      revoked_at: null,
    });
    expect(a.body.token).toMatch(/^shr_[A-Za-z0-9_-]{32}$/);
    expect(a.body.url).toBe(`${app.running.config.publicUrl}/share/${a.body.token}`);
    const b = await create();
    expect(b.status).toBe(201);
    expect(b.body.expires_at).toBeNull();
    expect(b.body.token).not.toBe(a.body.token);
  });

  it('rejects a label over 255 characters, an expiry in the past, and both expiry forms at once (422)', async () => {
    for (const body of [
      { label: 'x'.repeat(256) },
      { expires_at: '2026-03-01T00:00:00Z' },
      { expires_at: 'next tuesday' },
      { expires_in_hours: 0 },
      { expires_at: '2026-03-09T10:00:00Z', expires_in_hours: 5 },
      { password: 'abc' },
    ]) {
      const res = await create(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 422, code: 'VALIDATION_ERROR' });
    }
    expect((await app.request('POST', `/v1/deals/999999/share`, { key, body: {} })).status).toBe(404);
  });

  it('public view without a credential: the listed fields only, each view counted', async () => {
    const link = (await create({ label: 'public' })).body;
    const res = await view(link.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['deal', 'expires_at', 'shared_at', 'token']);
    expect(Object.keys(res.body.deal).sort()).toEqual(DEAL_FIELDS);
    const deal = (await app.request('GET', `/v1/deals/${dealId}`, { key })).body;
    expect(res.body.deal).toMatchObject({
      id: dealId,
      business_name: 'Harbor Coffee Roasters LLC',
      health_score: deal.health.score,
      paper_grade: deal.health.grade,
      decision: null,
      recommendation: deal.recommendation.decision,
      warnings: [],
      avg_monthly_deposits: deal.financials.avg_monthly_deposits,
      ending_balance: deal.financials.ending_balance,
      total_deposits: deal.financials.total_deposits,
      months_covered: deal.coverage.months_covered,
      nsf_count: deal.nsf_overdraft.total_nsf_fees,
      max_advance: deal.recommendation.max_advance,
      report_date: deal.report_date,
    });
    // no transactions, flags or notes anywhere in the body
    expect(JSON.stringify(res.body)).not.toMatch(/transactions|flag|screening|review|notes|statements/i);
    expect(res.body.shared_at).toBe(link.created_at);
    await view(link.token);
    const listed = (await app.request('GET', `/v1/deals/${dealId}/shares?per_page=100`, { key })).body.data;
    expect(listed.find((l: { id: number }) => l.id === link.id)).toMatchObject({
      view_count: 2,
      last_viewed_at: new Date(now).toISOString(),
    });
  });

  it('counts concurrent views atomically', async () => {
    const link = (await create()).body;
    const results = await Promise.all(Array.from({ length: 25 }, () => view(link.token)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const row = await app.get(Database).system().findOneOrFail(ShareLink, { id: link.id }, { filters: false });
    expect(row.viewCount).toBe(25);
  });

  it('Form B create with expires_in_hours and a password: hashed at rest, X-Share-Password required', async () => {
    const res = await create({ expires_in_hours: 48, password: 'harbor-2026' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ password_protected: true, expires_at: new Date(now + 48 * HOUR).toISOString() });
    const row = await app.get(Database).system().findOneOrFail(ShareLink, { id: res.body.id }, { filters: false });
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(row.passwordHash).not.toContain('harbor-2026');
    const missing = await view(res.body.token);
    expect([missing.status, missing.body.code]).toEqual([401, 'SHARE_PASSWORD_REQUIRED']);
    const wrong = await view(res.body.token, 'harbor-2025');
    expect([wrong.status, wrong.body.code]).toEqual([401, 'SHARE_PASSWORD_INVALID']);
    const right = await view(res.body.token, 'harbor-2026');
    expect(right.status).toBe(200);
    expect(right.body.deal.business_name).toBe('Harbor Coffee Roasters LLC');
    const again = await app.get(Database).system().findOneOrFail(ShareLink, { id: res.body.id }, { filters: false, refresh: true });
    expect(again.viewCount).toBe(1); // failed attempts are not views
  });

  it('expiry: 404 once expires_at passes; Form A lists expired links, Form B only active ones', async () => {
    const expiring = (await create({ expires_in_hours: 1 })).body;
    expect((await view(expiring.token)).status).toBe(200);
    now += 2 * HOUR;
    try {
      const gone = await view(expiring.token);
      expect([gone.status, gone.body.code]).toEqual([404, 'NOT_FOUND']);
      const page = await app.request('GET', `/share/${expiring.token}`);
      expect(page.status).toBe(404);
      const all = (await app.request('GET', `/v1/deals/${dealId}/shares?per_page=100`, { key })).body.data;
      expect(all.find((l: { id: number }) => l.id === expiring.id)).toMatchObject({ active: false, view_count: 1 });
      const active = (await app.request('GET', `/v1/deals/${dealId}/share`, { key })).body.data;
      expect(active.map((l: { id: number }) => l.id)).not.toContain(expiring.id);
      expect(active.length).toBeGreaterThan(0);
      expect(active.every((l: { active: boolean }) => l.active)).toBe(true);
    } finally {
      now -= 2 * HOUR;
    }
  });

  it('revoke: 204, then the link is 404 to viewers and to a second revoke; Form A keeps it with revoked_at', async () => {
    const link = (await create({ label: 'to revoke' })).body;
    expect((await view(link.token)).status).toBe(200);
    const res = await app.request('DELETE', `/v1/share/${link.id}`, { key });
    expect(res.status).toBe(204);
    expect((await view(link.token)).status).toBe(404);
    expect((await app.request('DELETE', `/v1/share/${link.id}`, { key })).status).toBe(404);
    const all = (await app.request('GET', `/v1/deals/${dealId}/shares?per_page=100`, { key })).body.data;
    expect(all.find((l: { id: number }) => l.id === link.id)).toMatchObject({ active: false, revoked_at: new Date(now).toISOString() });
    const active = (await app.request('GET', `/v1/deals/${dealId}/share`, { key })).body.data;
    expect(active.map((l: { id: number }) => l.id)).not.toContain(link.id);
  });

  it("another organization cannot list, create or revoke this deal's links (404); unknown tokens are 404", async () => {
    const other = await app.newOrg('Other Share Org');
    const link = (await create()).body;
    expect((await app.request('GET', `/v1/deals/${dealId}/shares`, { key: other.api_key })).status).toBe(404);
    expect((await app.request('GET', `/v1/deals/${dealId}/share`, { key: other.api_key })).status).toBe(404);
    expect((await app.request('POST', `/v1/deals/${dealId}/share`, { key: other.api_key, body: {} })).status).toBe(404);
    expect((await app.request('DELETE', `/v1/share/${link.id}`, { key: other.api_key })).status).toBe(404);
    expect((await app.request('DELETE', `/v1/share/${link.id}`, { key: org.test_api_key })).status).toBe(404);
    expect((await view(link.token)).status).toBe(200);
    for (const token of ['shr_doesnotexistdoesnotexist00', 'nope', `${link.token}x`]) expect((await view(token)).status).toBe(404);
  });

  it('60 views per minute per token: the 61st is 429 with Retry-After; another token is not affected', async () => {
    const limited = (await create()).body;
    const other = (await create()).body;
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await view(limited.token)).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    const last = await view(limited.token);
    expect(statuses[60]).toBe(429);
    expect(last.body.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await view(other.token)).status).toBe(200);
    // the human page of the same token shares the budget
    expect((await app.request('GET', `/share/${limited.token}`)).status).toBe(429);
  });

  describe('what the page claims', () => {
    const page = async (token: string) => (await app.request('GET', `/share/${token}`)).body as string;

    it('shows the recommendation as a recommendation, a decision only when a person made it, and one grade', async () => {
      const id = (await newReadyDeal(app, key, { businessName: 'Two Grades LLC', funding: 60000, recommend: true })).id;
      expect((await app.request('POST', `/v1/deals/${id}/regenerate-summary`, { key })).status).toBe(202);
      await app.drainEvents();
      const deal = (await app.request('GET', `/v1/deals/${id}`, { key })).body;
      // the recommendation's grade (of its ruleset score) and the health grade differ on this deal
      expect([deal.recommendation.grade, deal.health.grade]).toEqual(['B', 'A']);
      expect(deal.ai_summary).toContain('(grade A)');
      expect(deal.decision).toBeNull();
      const link = (await app.request('POST', `/v1/deals/${id}/share`, { key, body: { label: 'claims' } })).body;
      const json = (await view(link.token)).body.deal;
      expect(json).toMatchObject({ decision: null, recommendation: deal.recommendation.decision, paper_grade: deal.health.grade });
      const undecided = await page(link.token);
      expect(undecided).toContain('<div class="label">Recommendation</div>');
      expect(undecided).toMatch(
        new RegExp(`<span class="pill [a-z]*">${deal.recommendation.decision.replace(/^./, (c: string) => c.toUpperCase())}</span>`),
      );
      expect(undecided).toContain('No decision recorded yet');
      expect(undecided).not.toMatch(/Decision/);
      expect(undecided).toContain(`Paper grade <strong>${deal.health.grade}</strong>`);
      expect(undecided).not.toContain('<strong>B</strong>');
      expect(undecided).toContain('(grade A)');

      expect((await app.request('POST', `/v1/deals/${id}/decision`, { key, body: { decision: 'funded' } })).status).toBe(200);
      expect((await view(link.token)).body.deal).toMatchObject({ decision: 'funded', recommendation: deal.recommendation.decision });
      expect(await page(link.token)).toMatch(/<div>Decision <span class="pill good">Funded<\/span><\/div>/);
    });

    it("shows the underwriting tables with the report's own figures: positions, true revenue, own-account transfers, affordability", async () => {
      const id = (
        await newReadyDeal(app, key, { businessName: 'Tables Trucking LLC', statements: underwritingStatements(), recommend: true })
      ).id;
      const deal = (await app.request('GET', `/v1/deals/${id}`, { key })).body;
      const link = (await app.request('POST', `/v1/deals/${id}/share`, { key, body: { label: 'tables' } })).body;
      const json = (await view(link.token)).body.deal;

      // the JSON: the report's figures, field by field, without evidence rows, ids or account details
      const positions = deal.lender_positions.positions;
      expect(positions.map((p: { start_reason: string }) => p.start_reason)).toEqual(['new', 'renewal']);
      expect(json.lender_positions).toEqual({
        positions: positions.map((p: Record<string, unknown>) => ({
          lender: p.lender_name,
          known_lender: p.known_lender,
          frequency: p.frequency,
          payment_amount: p.payment_amount,
          first_seen: p.first_seen,
          last_seen: p.last_seen,
          funding_amount: p.funding_amount,
          estimated_remaining_balance: p.estimated_remaining_balance,
          start_reason: p.start_reason,
          missed_payments: p.missed_payments,
          bounced_payments: p.bounced_payments,
          stacked: p.stacked,
          is_active: p.is_active,
        })),
        active_count: deal.lender_positions.active_count,
        stacking_count: deal.lender_positions.stacking_count,
        estimated_monthly_total: deal.lender_positions.estimated_monthly_total,
      });
      expect(json.revenue).toEqual({ months: deal.revenue.months, totals: deal.revenue.totals });
      expect(json.own_transfers).toEqual({ count: 1, total: deal.own_transfers.total });
      expect(json.affordability).toEqual(deal.affordability);
      const { lender_positions, revenue, own_transfers, affordability } = json;
      expect(JSON.stringify({ lender_positions, revenue, own_transfers, affordability })).not.toMatch(
        /transactions|flag|screening|review|notes|statements|9876|4321|lender_id|counterparty/i,
      );

      const html = await page(link.token);
      // positions: one row per position, with its cadence, payment, dates, funding, remaining and marks
      const renewal = positions[1];
      expect(renewal).toMatchObject({ lender_name: 'OnDeck', funding_amount: 15000, stacked: true });
      expect(positions[0].bounced_payments).toBe(1);
      expect(html).toContain(
        `<caption>2 positions, 1 active, up to 2 at once · about ${usd(deal.lender_positions.estimated_monthly_total)} a month</caption>`,
      );
      expect(tableRows(html, 'Lender positions')).toEqual([
        ['Lender', 'Cadence', 'Payment', 'First – last seen', 'Funding', 'Est. remaining', 'Marks'],
        [
          'OnDeck',
          'Daily',
          usd(positions[0].payment_amount, 2),
          `${shortDate(positions[0].first_seen)} – ${shortDate(positions[0].last_seen)}`,
          '—',
          '—',
          '1 bouncedStackedEnded',
        ],
        [
          'OnDeck',
          'Daily',
          usd(renewal.payment_amount, 2),
          `${shortDate(renewal.first_seen)} – ${shortDate(renewal.last_seen)}`,
          usd(renewal.funding_amount),
          usd(renewal.estimated_remaining_balance),
          'RenewalStacked',
        ],
      ]);
      // true revenue: the classes that excluded something get a column, then the excluded total and true revenue
      const { months, totals } = deal.revenue;
      expect(totals.excluded.transfer).toBeGreaterThan(0);
      expect(totals.excluded.loan_proceeds).toBeGreaterThan(0);
      const cells = (r: typeof totals) =>
        [r.gross_deposits, r.excluded.transfer, r.excluded.loan_proceeds, r.excluded_total, r.true_revenue].map((n: number) => usd(n));
      expect(tableRows(html, 'True revenue by month')).toEqual([
        ['Month', 'Gross deposits', 'Transfers', 'Loan proceeds', 'Excluded', 'True revenue'],
        ['Jan 2025', ...cells(months[0])],
        ['Feb 2025', ...cells(months[1])],
        ['Mar 2025', ...cells(months[2])],
        ['Total', ...cells(totals)],
      ]);
      // own-account transfers and the affordability arithmetic, step by step
      expect(html).toContain(`<div class="value">1 transfer · ${usd(deal.own_transfers.total)}</div>`);
      expect(deal.affordability.max_advance).toBeGreaterThan(0);
      expect(html).toContain(
        `<div class="label">Affordability: max advance</div><div class="big">${usd(deal.affordability.max_advance)}</div>`,
      );
      expect(html).toContain(`<ol class="steps">${deal.affordability.steps.map((s: string) => `<li>${s}</li>`).join('')}</ol>`);
      expect(deal.affordability.steps).toHaveLength(5);
    });

    it('a deal analysed with no positions says so; a report without the tables shows none of them', async () => {
      const link = (await create({ label: 'no tables' })).body;
      const json = (await view(link.token)).body.deal;
      expect(json.lender_positions.positions).toEqual([]);
      expect(json.own_transfers).toEqual({ count: 0, total: 0 });
      const html = await page(link.token);
      expect(html).toContain('No lender positions found in the statements.');
      expect(html).not.toContain('<table aria-label="Lender positions">');
      expect(tableRows(html, 'True revenue by month')[0]).toEqual(['Month', 'Gross deposits', 'Excluded', 'True revenue']);
      const bare = (
        await app.request('POST', '/v1/deals', { key, body: { business_name: 'Not Analysed LLC', funding_amount_requested: 1000 } })
      ).body.id;
      const bareLink = (await app.request('POST', `/v1/deals/${bare}/share`, { key, body: {} })).body;
      expect((await view(bareLink.token)).body.deal).toMatchObject({
        lender_positions: null,
        revenue: null,
        own_transfers: null,
        affordability: null,
      });
      const bareHtml = await page(bareLink.token);
      expect(bareHtml).not.toMatch(/<table|Lender positions|True revenue|Affordability/);
    });

    it('a HEAD request is a view: counted, and limited with GET to 60 per minute per token', async () => {
      const link = (await create()).body;
      // HEAD is not an operation of its own in the API reference: the GET's
      const head = (path: string) => app.request('HEAD', path, { unchecked: true });
      expect((await head(`/v1/share/${link.token}`)).status).toBe(200);
      expect((await head(`/share/${link.token}`)).status).toBe(200);
      const row = () => app.get(Database).system().findOneOrFail(ShareLink, { id: link.id }, { filters: false, refresh: true });
      expect((await row()).viewCount).toBe(2);
      const statuses: number[] = [];
      for (let i = 0; i < 58; i++) statuses.push((await head(`/v1/share/${link.token}`)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const over = await head(`/v1/share/${link.token}`);
      expect(over.status).toBe(429);
      expect(over.headers.get('x-ratelimit-limit')).toBe('60');
      expect((await view(link.token)).status).toBe(429);
      expect((await row()).viewCount).toBe(60);
    });

    it('a statement that does not reconcile is the first thing the page says (real PDFs through the pipeline)', async () => {
      const misread = (
        await app.request('POST', '/v1/deals', { key, body: { business_name: 'Misread Share LLC', funding_amount_requested: 1000 } })
      ).body.id;
      for (const [name, bytes] of [
        [
          'good.pdf',
          (
            await makeStatement(
              LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
              51,
              40,
            )
          ).bytes,
        ],
        ['misread.pdf', await unreconciledStatement(52)],
      ] as const) {
        const form = new FormData();
        form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
        expect((await app.request('POST', `/v1/deals/${misread}/documents`, { key, form })).status).toBe(201);
      }
      await app.settle();
      const link = (await app.request('POST', `/v1/deals/${misread}/share`, { key, body: {} })).body;
      const json = (await view(link.token)).body.deal;
      expect(json.recommendation).toBe('review');
      expect(json.warnings).toHaveLength(1);
      expect(json.warnings[0]).toMatch(
        /^Statement misread\.pdf failed reconciliation: does not reconcile: opening [\d.]+ \+ credits [\d.]+ - debits [\d.]+ = [\d.]+, printed closing [\d.]+ \(difference 59673\.00\)$/,
      );
      const html = await page(link.token);
      const main = html.slice(html.indexOf('<main'));
      expect(main.indexOf('role="alert"')).toBeGreaterThan(0);
      expect(main.indexOf('role="alert"')).toBeLessThan(main.indexOf('class="hero"'));
      expect(main).toContain('Needs review before relying on these figures');
      expect(main).toContain('Statement misread.pdf failed reconciliation: does not reconcile');
    });
  });

  describeWith('chromium')('the human page in headless Chromium', () => {
    let browser: Browser;
    const shots = join(tmpdir(), `ledgerlens-share-shots-${process.pid}`);
    beforeAll(async () => {
      mkdirSync(shots, { recursive: true });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
        timeout: 170_000,
      });
    }, 180_000); // starting chromium takes seconds on an idle machine, over a minute on a loaded CI box
    afterAll(async () => {
      await browser?.close();
    });

    it('shows the same data as the JSON view, fits a phone screen, and loads nothing from elsewhere', async () => {
      const link = (await create({ label: 'page' })).body;
      const json = (await view(link.token)).body.deal;
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true });
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const res = await page.goto(link.url.replace(app.running.config.publicUrl, app.url));
      expect(res?.status()).toBe(200);
      expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
      expect(await page.locator('h1').innerText()).toBe('Harbor Coffee Roasters LLC');
      const body = await page.locator('body').innerText();
      expect(body).toContain(`${Math.round(json.health_score)} / 100`);
      expect(body).toContain(usd(json.avg_monthly_deposits));
      expect(body).toContain(usd(json.funding_amount_requested));
      expect(body).toContain(usd(json.max_advance));
      expect(body.toLowerCase()).toContain(json.recommendation);
      // mobile: nothing wider than the screen
      // (a string: the test project compiles without the DOM library)
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      expect(requests.every((u) => u.startsWith(app.url))).toBe(true);
      await page.screenshot({ path: join(shots, 'share-page.png'), fullPage: true });
      await context.close();
      const row = await app.get(Database).system().findOneOrFail(ShareLink, { id: link.id }, { filters: false, refresh: true });
      expect(row.viewCount).toBe(2);
    }, 120_000);

    it('the underwriting tables fit a phone screen: a wide table scrolls inside its card (test-output/share)', async () => {
      const id = (await newReadyDeal(app, key, { businessName: 'Phone Tables LLC', statements: underwritingStatements(), recommend: true }))
        .id;
      const link = (await app.request('POST', `/v1/deals/${id}/share`, { key, body: {} })).body;
      const deal = (await app.request('GET', `/v1/deals/${id}`, { key })).body;
      const dir = join(ROOT, 'test-output', 'share');
      mkdirSync(dir, { recursive: true });
      for (const [width, height] of [
        [390, 844],
        [1280, 900],
      ]) {
        const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, isMobile: width < 640 });
        const page = await context.newPage();
        const requests: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        expect((await page.goto(`${app.url}/share/${link.token}`))?.status()).toBe(200);
        const positions = await page.locator('table[aria-label="Lender positions"] tbody tr').count();
        expect(positions).toBe(deal.lender_positions.positions.length);
        const revenue = await page.locator('table[aria-label="True revenue by month"]').innerText();
        expect(revenue).toContain(usd(deal.revenue.totals.true_revenue));
        expect(await page.locator('.steps li').count()).toBe(deal.affordability.steps.length);
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow).toBeLessThanOrEqual(0);
        expect(requests.every((u) => u.startsWith(app.url))).toBe(true);
        await page.screenshot({ path: join(dir, `share-page-tables-${width}x${height}.png`), fullPage: true });
        await context.close();
      }
    }, 120_000);

    it('asks for the password of a protected link, refuses a wrong one, then shows the summary', async () => {
      const link = (await create({ expires_in_hours: 24, password: 'open-sesame' })).body;
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
      const page = await context.newPage();
      const first = await page.goto(`${app.url}/share/${link.token}`);
      expect(first?.status()).toBe(401);
      await expect(page.locator('input[type=password]').count()).resolves.toBe(1);
      await page.fill('input[type=password]', 'wrong-one');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      expect(await page.locator('[role=alert]').innerText()).toContain('not right');
      await page.fill('input[type=password]', 'open-sesame');
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
      expect(await page.locator('h1').innerText()).toBe('Harbor Coffee Roasters LLC');
      await page.screenshot({ path: join(shots, 'share-password.png') });
      await context.close();
      const row = await app.get(Database).system().findOneOrFail(ShareLink, { id: link.id }, { filters: false, refresh: true });
      expect(row.viewCount).toBe(1);
    }, 120_000);

    it('escapes what it shows: a business name with markup stays text', async () => {
      const created = await app.request('POST', '/v1/deals', {
        key,
        body: { business_name: '<script>alert(1)</script> & Sons', funding_amount_requested: 1000 },
      });
      const link = (await app.request('POST', `/v1/deals/${created.body.id}/share`, { key, body: {} })).body;
      const context = await browser.newContext();
      const page = await context.newPage();
      let dialogs = 0;
      page.on('dialog', (d) => {
        dialogs++;
        void d.dismiss();
      });
      await page.goto(`${app.url}/share/${link.token}`);
      expect(await page.locator('h1').innerText()).toBe('<script>alert(1)</script> & Sons');
      expect(dialogs).toBe(0);
      await context.close();
    }, 120_000);
  });
});
