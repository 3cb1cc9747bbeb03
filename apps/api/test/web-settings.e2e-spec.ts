import type { Browser, Page } from 'playwright-core';
import { TestApp } from './support/harness';
import { Receiver } from './support/receiver';
import { describeWith } from './support/system-tools';
import * as web from './support/web-browser';
import { FakeHubspot, startFakeHubspot } from '../../../tools/fakes/crm';

const SECRET = 'whsec_c2V0dGluZ3Mtc2VjcmV0LWZvci10ZXN0cw==';

/**
 * The admin's settings for the systems Ledgerlens talks to (apps/web, /app/settings) in headless
 * Chromium against a real server: a webhook receiver on 127.0.0.1 that verifies every signature
 * with packages/webhooks, and the local HubSpot fake for the CRM. Set the receiver, send a test
 * event, see it in the delivery log, redeliver it; connect HubSpot, sync, see the run; read the
 * month's usage. axe on each state, screenshots at both sizes.
 */
describeWith('chromium')('settings: webhook, CRM and usage in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let receiver: Receiver;
  let hubspot: FakeHubspot;
  let admin: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    web.buildWebApp();
    app = await TestApp.start({ OUTBOUND_ALLOWLIST: '127.0.0.1/32' });
    receiver = await Receiver.start(() => SECRET);
    hubspot = await startFakeHubspot();
    admin = await app.newOrg('Settings Funding');
    await app.request('POST', '/v1/deals', {
      key: admin.api_key,
      body: { business_name: 'Lighthouse Diner LLC', funding_amount_requested: 30000 },
    });
    browser = await web.launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
    await hubspot?.close();
  });

  const open = (viewport = web.VIEWPORTS[0]) => web.openPage(browser, app.url, viewport);
  const signIn = (page: Page) => web.signIn(page, app.url, admin.user.email, admin.password);

  it('sets the webhook receiver, sends a test event the receiver verifies, lists it and redelivers it', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    const panel = page.locator('section[aria-labelledby=webhooks-title]');
    await panel.getByText('No webhook yet').waitFor();
    await panel.getByRole('button', { name: 'Set a receiver' }).click();
    const form = page.getByRole('form', { name: 'Webhook receiver' });
    await form.getByLabel('Receiver URL (HTTPS)').fill(receiver.url);
    // a generated secret is a Standard Webhooks one; the receiver here knows a fixed one
    await form.getByRole('button', { name: 'Generate' }).click();
    await expect(form.getByLabel('Signing secret').inputValue()).resolves.toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    await form.getByLabel('Signing secret').fill(SECRET);
    await form.getByLabel('deal.created').check();
    await web.expectAccessible(page, 'settings (webhook form)');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(panel.getByTestId('webhook-url').innerText()).resolves.toBe(receiver.url);
    const stored = (await app.request('GET', '/v1/webhooks/config', { key: admin.api_key })).body.data;
    expect(stored.events).toEqual(expect.arrayContaining(['deal.ready', 'deal.decision', 'deal.created']));

    await panel.getByRole('button', { name: 'Send a test event' }).click();
    await panel.getByRole('status').filter({ hasText: 'Test delivered: HTTP 200' }).waitFor();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]).toMatchObject({ error: null, event: { type: 'webhook.test' } });
    const log = panel.getByRole('region', { name: 'Webhook deliveries' });
    await expect(log.locator('tbody tr').count()).resolves.toBe(1);
    await expect(log.locator('tbody tr').first().innerText()).resolves.toMatch(/webhook\.test\s+Delivered\s+200\s+1\/\d+/);
    // a delivered event is not offered again
    await expect(log.getByRole('button', { name: 'Redeliver' }).count()).resolves.toBe(0);

    // the receiver is down: the test fails, and its delivery can be sent again once it is back
    receiver.respond = () => 503;
    await panel.getByRole('button', { name: 'Send a test event' }).click();
    await panel.getByRole('status').filter({ hasText: 'HTTP 503' }).waitFor();
    const failed = log.locator('tbody tr', { hasText: 'Failed' });
    await failed.waitFor();
    receiver.respond = () => 200;
    await failed.getByRole('button', { name: 'Redeliver' }).click();
    await log.getByText('(redelivery)').waitFor();
    await app.settle();
    await page.reload();
    await log.locator('tbody tr', { hasText: '(redelivery)' }).getByText('Delivered').waitFor();
    const verified = receiver.received.filter((r) => r.error === null && r.event?.type === 'webhook.test');
    expect(verified.length).toBeGreaterThanOrEqual(3);
    await web.expectAccessible(page, 'settings (webhook deliveries)');
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('connects HubSpot (tested with HubSpot as it is saved), syncs the deals and shows the run; shows the usage', async () => {
    const { context, page, problems } = await open();
    await signIn(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.locator('section[aria-labelledby=crm-hubspot]');
    await card.getByText('Not connected').waitFor();
    await card.getByRole('button', { name: 'Connect' }).click();
    const form = page.getByRole('form', { name: 'Hubspot credentials' });
    // a wrong token is refused by HubSpot itself: the form stays open and says so
    await form.getByLabel('Private app access token').fill('pat-na1-wrong');
    await form.getByLabel('API base URL (optional)').fill(hubspot.url);
    await form.getByRole('button', { name: 'Save and test' }).click();
    await form.getByRole('alert').filter({ hasText: 'Hubspot refused the connection' }).waitFor();
    await web.expectAccessible(page, 'settings (CRM refused)');
    await form.getByLabel('Private app access token').fill(hubspot.token);
    await form.getByRole('button', { name: 'Save and test' }).click();
    await card.getByText('Connected', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Test' }).click();
    await card.getByRole('status').waitFor();

    await card.getByRole('button', { name: 'Sync now' }).click();
    await card.getByRole('status').filter({ hasText: /Sync/ }).waitFor();
    await app.settle();
    const runs = page.getByRole('region', { name: 'CRM sync runs' });
    await runs.locator('tbody tr', { hasText: 'Completed' }).first().waitFor({ timeout: 30_000 });
    await expect(runs.locator('tbody tr').first().innerText()).resolves.toMatch(/All connected\s+Manual\s+Completed\s+1\s+0/);
    expect(hubspot.deals.size).toBe(1);
    expect([...hubspot.deals.values()][0].properties.dealname).toBe('Lighthouse Diner LLC');

    const usage = page.locator('section[aria-labelledby=usage-title]');
    await usage.getByText('API requests').waitFor();
    const me = (await app.request('GET', '/v1/usage/me', { key: admin.api_key })).body;
    await expect(usage.innerText()).resolves.toContain(`Plan ${me.plan.charAt(0).toUpperCase()}`);
    await web.expectAccessible(page, 'settings (CRM and usage)');
    for (const viewport of web.VIEWPORTS) {
      await page.setViewportSize(viewport);
      await web.shoot(page, 'settings-integrations', true);
    }
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
