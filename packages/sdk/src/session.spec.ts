import { TestApp } from '../../../apps/api/test/support/harness';
import { AuthenticationError, Ledgerlens, PermissionError, type FetchLike } from './index.js';

/**
 * A fetch that keeps cookies the way a browser does for one origin: what Set-Cookie stores is sent
 * back as Cookie (Node's fetch keeps none). It also records what was sent, for the assertions.
 */
function cookieJarFetch(): { fetch: FetchLike; jar: Map<string, string>; setCookies: string[]; sent: Headers[] } {
  const jar = new Map<string, string>();
  const setCookies: string[] = [];
  const sent: Headers[] = [];
  const fetchWithJar: FetchLike = async (input, init) => {
    // the SDK (ky) calls fetch with a Request, as any fetch may be called
    const request = new Request(input, init);
    if (jar.size) request.headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    sent.push(request.headers);
    const res = await fetch(request);
    for (const line of res.headers.getSetCookie()) {
      setCookies.push(line);
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (!value || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  };
  return { fetch: fetchWithJar, jar, setCookies, sent };
}

describe('browser session (cookie + CSRF) through the SDK, against the real API', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Session Org');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('signs in into an HttpOnly SameSite=Strict cookie, writes with the CSRF token, and signs out', async () => {
    const browser = cookieJarFetch();
    const ll = Ledgerlens.browser({ baseUrl: app.url, fetch: browser.fetch, maxRetries: 0 });
    const session = await ll.session.signIn(org.user.email, org.password);
    expect(session.user).toMatchObject({ id: org.user.id, email: org.user.email, role: 'admin', organization_name: 'Session Org' });
    expect(session.scopes).toEqual(['read', 'write', 'keys:manage']);
    // the token is in the cookie only: not in the body, and the cookie is out of scripts' reach
    expect(JSON.stringify(session)).not.toContain('sess_');
    expect(browser.setCookies[0]).toMatch(/^ll_session=sess_[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=86400$/);
    expect(browser.jar.get('ll_session')).toMatch(/^sess_/);

    const deal = await ll.deals.create({ business_name: 'Cookie Bakery LLC', funding_amount_requested: 10000 });
    expect(deal.business_name).toBe('Cookie Bakery LLC');
    expect(browser.sent.at(-1)?.get('x-csrf-token')).toBe(session.csrf_token);
    expect(browser.sent.at(-1)?.get('user-agent')).toBeNull();

    // a client that learnt the token again (a reload of the page) still writes
    const reloaded = Ledgerlens.browser({ baseUrl: app.url, fetch: browser.fetch, maxRetries: 0 });
    expect((await reloaded.session.get()).csrf_token).toBe(session.csrf_token);
    await reloaded.deals.update(deal.id, { business_name: 'Cookie Bakery II LLC' });

    await ll.session.signOut();
    expect(browser.setCookies.at(-1)).toMatch(/^ll_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    await expect(ll.session.get()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('refuses a write with the cookie but without the CSRF token (what another site could make a browser send)', async () => {
    const browser = cookieJarFetch();
    const ll = Ledgerlens.browser({ baseUrl: app.url, fetch: browser.fetch, maxRetries: 0 });
    await ll.session.signIn(org.user.email, org.password);
    const cookie = `ll_session=${browser.jar.get('ll_session')}`;
    const forged = await fetch(`${app.url}/v1/deals`, {
      method: 'POST',
      headers: { Cookie: cookie, 'Content-Type': 'application/json' },
      body: JSON.stringify({ business_name: 'Forged LLC', funding_amount_requested: 1 }),
    });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { detail: string }).detail).toContain('CSRF');
    const wrong = await fetch(`${app.url}/v1/deals`, {
      method: 'POST',
      headers: { Cookie: cookie, 'Content-Type': 'application/json', 'X-CSRF-Token': 'x'.repeat(43) },
      body: JSON.stringify({ business_name: 'Forged LLC', funding_amount_requested: 1 }),
    });
    expect(wrong.status).toBe(403);
    // reads need no token
    const read = await fetch(`${app.url}/v1/deals`, { headers: { Cookie: cookie } });
    expect(read.status).toBe(200);
    // an API key in the cookie is not a credential
    const keyCookie = await fetch(`${app.url}/v1/deals`, { headers: { Cookie: `ll_session=${org.api_key}` } });
    expect(keyCookie.status).toBe(401);
  });

  it("applies the role's rules: a reviewer reads but is refused a write (403)", async () => {
    const reviewer = await app.newUser(org.organization.id, 'reviewer');
    const ll = Ledgerlens.browser({ baseUrl: app.url, fetch: cookieJarFetch().fetch, maxRetries: 0 });
    const session = await ll.session.signIn(reviewer.user.email, reviewer.password);
    expect(session.scopes).toEqual(['read']);
    await expect(ll.deals.list()).resolves.toMatchObject({ meta: { page: 1 } });
    await expect(ll.deals.create({ business_name: 'Nope LLC', funding_amount_requested: 1 })).rejects.toBeInstanceOf(PermissionError);
  });

  it('answers 401 to a wrong password and 403 to a session lookup with an API key', async () => {
    const ll = Ledgerlens.browser({ baseUrl: app.url, fetch: cookieJarFetch().fetch, maxRetries: 0 });
    await expect(ll.session.signIn(org.user.email, 'wrong')).rejects.toBeInstanceOf(AuthenticationError);
    const keyed = new Ledgerlens({ baseUrl: app.url, apiKey: org.api_key, maxRetries: 0 });
    await expect(keyed.session.get()).rejects.toBeInstanceOf(PermissionError);
  });
});
