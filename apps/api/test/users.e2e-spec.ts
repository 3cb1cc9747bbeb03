import { TestApp } from './support/harness';
import { Database } from '../src/platform/database/database.service';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';

/** The organization's users for its admins (the app's settings): list, invite, change a role, audited and scoped. */
describe('users', () => {
  let app: TestApp;
  let org: Awaited<ReturnType<TestApp['newOrg']>>;
  let other: Awaited<ReturnType<TestApp['newOrg']>>;

  beforeAll(async () => {
    app = await TestApp.start();
    org = await app.newOrg('Users Org');
    other = await app.newOrg('Users Other');
  });
  afterAll(() => app?.close());

  it('an admin invites a user with a first password shown once; the user signs in with it', async () => {
    const res = await app.request('POST', '/v1/users', {
      key: org.api_key,
      body: { email: 'New.Underwriter@Example.test', name: 'Nia Park', role: 'underwriter' },
    });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ email: 'new.underwriter@example.test', name: 'Nia Park', role: 'underwriter' });
    expect(res.body.temporary_password).toMatch(/^[\w-]{16}$/);
    const login = await app.request('POST', '/v1/auth/login', {
      body: { email: 'new.underwriter@example.test', password: res.body.temporary_password },
    });
    expect(login.status).toBe(200);
    const list = await app.request('GET', '/v1/users', { key: org.api_key });
    expect(list.body.data.map((u: { email: string }) => u.email)).toEqual([org.user.email, 'new.underwriter@example.test']);
    expect(JSON.stringify(list.body)).not.toContain(res.body.temporary_password);
    const again = await app.request('POST', '/v1/users', {
      key: org.api_key,
      body: { email: 'new.underwriter@example.test', role: 'reviewer' },
    });
    expect(again.status).toBe(409);
    const events = await app
      .get(Database)
      .system()
      .find(DomainEventRecord, { type: 'user.invited', organizationId: org.organization.id }, { filters: false });
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ email: 'new.underwriter@example.test', role: 'underwriter' })]);
  });

  it('changes a role (effective on the next request), keeps the last admin, and validates', async () => {
    const member = await app.newUser(org.organization.id, 'manager');
    expect(
      (await app.request('POST', '/v1/deals', { key: member.api_key, body: { business_name: 'X', funding_amount_requested: 1 } })).status,
    ).toBe(201);
    const res = await app.request('PATCH', `/v1/users/${member.user.id}`, { key: org.api_key, body: { role: 'reviewer' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: member.user.id, role: 'reviewer' });
    expect(
      (await app.request('POST', '/v1/deals', { key: member.api_key, body: { business_name: 'X', funding_amount_requested: 1 } })).status,
    ).toBe(403);
    const last = await app.request('PATCH', `/v1/users/${org.user.id}`, { key: org.api_key, body: { role: 'manager' } });
    expect(last.status).toBe(409);
    expect(last.body.detail).toContain('at least one admin');
    expect((await app.request('PATCH', `/v1/users/${member.user.id}`, { key: org.api_key, body: { role: 'owner' } })).status).toBe(422);
    expect((await app.request('POST', '/v1/users', { key: org.api_key, body: { email: 'not-an-email', role: 'reviewer' } })).status).toBe(
      422,
    );
  });

  it('is for admins only (403), and another organization’s user is 404', async () => {
    const manager = await app.newUser(org.organization.id, 'manager');
    expect((await app.request('GET', '/v1/users', { key: manager.api_key })).status).toBe(403);
    expect(
      (await app.request('POST', '/v1/users', { key: manager.api_key, body: { email: 'x@example.test', role: 'admin' } })).status,
    ).toBe(403);
    expect((await app.request('PATCH', `/v1/users/${manager.user.id}`, { key: manager.api_key, body: { role: 'admin' } })).status).toBe(
      403,
    );
    expect((await app.request('PATCH', `/v1/users/${org.user.id}`, { key: other.api_key, body: { name: 'Stolen' } })).status).toBe(404);
    const theirs = await app.request('GET', '/v1/users', { key: other.api_key });
    expect(theirs.body.data.map((u: { email: string }) => u.email)).toEqual([other.user.email]);
    // users are live records: the organization's own test-mode key sees none and invites none
    expect((await app.request('GET', '/v1/users', { key: org.test_api_key })).body.data).toEqual([]);
    expect((await app.request('PATCH', `/v1/users/${org.user.id}`, { key: org.test_api_key, body: { name: 'x' } })).status).toBe(404);
    expect(
      (await app.request('POST', '/v1/users', { key: org.test_api_key, body: { email: 'y@example.test', role: 'reviewer' } })).status,
    ).toBe(403);
  });
});
