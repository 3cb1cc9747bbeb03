import { TestApp } from './support/harness';

/**
 * Organization and live/test isolation on every route with an id or a list: a record of another
 * organization, or of the other mode, is 404 and never listed or counted.
 */
describe('isolation between organizations and between live and test data', () => {
  let app: TestApp;
  let owner: Awaited<ReturnType<TestApp['newOrg']>>;
  let stranger: Awaited<ReturnType<TestApp['newOrg']>>;
  let liveDeal: number;
  let testDeal: number;

  beforeAll(async () => {
    app = await TestApp.start();
    owner = await app.newOrg('Owner');
    stranger = await app.newOrg('Stranger');
    liveDeal = (
      await app.request('POST', '/v1/deals', { key: owner.api_key, body: { business_name: 'Live Deal', funding_amount_requested: 1000 } })
    ).body.id;
    testDeal = (
      await app.request('POST', '/v1/deals', {
        key: owner.test_api_key,
        body: { business_name: 'Sandbox Deal', funding_amount_requested: 1000 },
      })
    ).body.id;
  });
  afterAll(() => app?.close());

  // Every row has a body slot (null when none): jest passes a done callback to short rows.
  const byId: [string, (id: number) => string, unknown][] = [
    ['GET', (id) => `/v1/deals/${id}`, null],
    ['PATCH', (id) => `/v1/deals/${id}`, { industry: 'x' }],
    ['POST', (id) => `/v1/deals/${id}/decision`, { decision: 'approve' }],
    ['DELETE', (id) => `/v1/deals/${id}`, null],
  ];

  it.each(byId)('%s %s of another organization is 404 DEAL_NOT_FOUND', async (method, path, body) => {
    const res = await app.request(method, path(liveDeal), { key: stranger.api_key, body: body ?? undefined });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('DEAL_NOT_FOUND');
  });

  it.each(byId)('%s %s across live and test modes is 404', async (method, path, body) => {
    expect((await app.request(method, path(liveDeal), { key: owner.test_api_key, body: body ?? undefined })).status).toBe(404);
    expect((await app.request(method, path(testDeal), { key: owner.api_key, body: body ?? undefined })).status).toBe(404);
  });

  it('lists, searches and counts only the caller organization and mode', async () => {
    const live = await app.request('GET', '/v1/deals', { key: owner.api_key });
    expect(live.body.data.map((d: { id: number }) => d.id)).toEqual([liveDeal]);
    expect(live.body.data[0].mode).toBe('live');
    const test = await app.request('GET', '/v1/deals', { key: owner.test_api_key });
    expect(test.body.data.map((d: { id: number }) => d.id)).toEqual([testDeal]);
    expect(test.body.data[0].mode).toBe('test');
    expect((await app.request('GET', '/v1/deals?q=Deal', { key: stranger.api_key })).body.meta.total).toBe(0);
    expect((await app.request('GET', '/v1/deals/stats', { key: stranger.api_key })).body.total_deals).toBe(0);
    expect((await app.request('GET', '/v1/deals/stats', { key: owner.test_api_key })).body.total_deals).toBe(1);
  });

  it("leaves the owner's deal untouched after the foreign attempts", async () => {
    const res = await app.request('GET', `/v1/deals/${liveDeal}`, { key: owner.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ industry: null, decision: null });
  });

  it('keeps session and OAuth credentials on live data of their own organization', async () => {
    const login = await app.request('POST', '/auth/login', { body: { email: stranger.user.email, password: stranger.password } });
    const bearer = { Authorization: `Bearer ${login.body.token}` };
    expect((await app.request('GET', `/v1/deals/${liveDeal}`, { headers: bearer })).status).toBe(404);
    const token = await app.request('POST', '/v1/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: owner.oauth_client.client_id, client_secret: owner.oauth_client.client_secret },
    });
    const oauth = { Authorization: `Bearer ${token.body.access_token}` };
    expect((await app.request('GET', `/v1/deals/${liveDeal}`, { headers: oauth })).status).toBe(200);
    expect((await app.request('GET', `/v1/deals/${testDeal}`, { headers: oauth })).status).toBe(404);
  });
});
