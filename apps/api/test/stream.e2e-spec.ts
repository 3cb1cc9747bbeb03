import { TestApp } from './support/harness';
import { SseClient } from './support/sse-client';
import { realDatabaseUrl, realRedisUrl } from './support/services';
import { EventBus, RedisEventBus } from '../src/platform/events/event-bus';
import { StreamService } from '../src/modules/stream/stream.service';
import { Database } from '../src/platform/database/database.service';
import { recordEvent } from '../src/platform/events/events';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;

/** The SSE stream: scoping by organization, mode and deal, credentials, replay, heartbeats, fan-out. */
describe('event stream (SSE)', () => {
  let app: TestApp;
  let a: Org;
  let b: Org;
  const open: SseClient[] = [];

  const connect = async (path: string, headers: Record<string, string> = {}, target: TestApp = app) => {
    const client = await SseClient.open(target.url + path, headers);
    open.push(client);
    return client;
  };
  const newDeal = async (key: string, name: string, target: TestApp = app) =>
    (await target.request('POST', '/v1/deals', { key, body: { business_name: name, funding_amount_requested: 1000 } })).body as {
      id: number;
    };

  beforeAll(async () => {
    app = await TestApp.start({ SSE_HEARTBEAT_SECONDS: '1' });
    a = await app.newOrg('Stream A');
    b = await app.newOrg('Stream B');
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(() => app?.close());

  it("streams the organization's events with an id, a name and JSON data", async () => {
    const stream = await connect('/v1/events/stream', { 'X-API-Key': a.api_key });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('x-ratelimit-limit')).not.toBeNull();
    await stream.next((m) => m.comments.includes('connected'));
    const deal = await newDeal(a.api_key, 'Live Stream Co');
    await app.request('PATCH', `/v1/deals/${deal.id}`, { key: a.api_key, body: { industry: 'retail' } });
    await app.drainEvents();
    const created = await stream.next();
    expect(created).toMatchObject({
      event: 'deal.created',
      data: { deal_id: deal.id, business_name: 'Live Stream Co', type: 'deal.created' },
    });
    expect(created.id).toMatch(/^\d+$/);
    expect(created.data.event_id).toMatch(/^evt_/);
    const updated = await stream.next();
    expect(updated).toMatchObject({ event: 'deal.updated', data: { deal_id: deal.id, changed_fields: ['industry'] } });
    expect(Number(updated.id)).toBeGreaterThan(Number(created.id));
  });

  it('sees nothing of another organization or of the other mode (token query credential too)', async () => {
    const streamA = await connect('/v1/events/stream', { 'X-API-Key': a.api_key });
    const streamB = await connect(`/v1/events/stream?token=${encodeURIComponent(b.api_key)}`);
    const streamATest = await connect('/v1/events/stream', { Authorization: `Bearer ${a.test_api_key}` });
    for (const s of [streamA, streamB, streamATest]) await s.next((m) => m.comments.includes('connected'));
    const dealA = await newDeal(a.api_key, 'A Only');
    const dealATest = await newDeal(a.test_api_key, 'A Sandbox');
    const dealB = await newDeal(b.api_key, 'B Only');
    await app.drainEvents();
    // Each stream's first event is its own; events are in commit order, so nothing foreign came before.
    expect((await streamA.next()).data.deal_id).toBe(dealA.id);
    expect((await streamATest.next()).data.deal_id).toBe(dealATest.id);
    expect((await streamB.next()).data.deal_id).toBe(dealB.id);
    // ... and nothing foreign after: a marker event closes each stream's window.
    const markers = [await newDeal(a.api_key, 'marker A'), await newDeal(a.test_api_key, 'marker T'), await newDeal(b.api_key, 'marker B')];
    await app.drainEvents();
    expect((await streamA.next()).data.deal_id).toBe(markers[0].id);
    expect((await streamATest.next()).data.deal_id).toBe(markers[1].id);
    expect((await streamB.next()).data.deal_id).toBe(markers[2].id);
  });

  it("the deal stream carries that deal's events only, and is 404 for another organization's deal", async () => {
    const one = await newDeal(a.api_key, 'Deal One');
    const two = await newDeal(a.api_key, 'Deal Two');
    await app.drainEvents();
    const stream = await connect(`/v1/events/deals/${one.id}?token=${encodeURIComponent(a.api_key)}`);
    await stream.next((m) => m.comments.includes('connected'));
    await app.request('POST', `/v1/deals/${two.id}/decision`, { key: a.api_key, body: { decision: 'decline' } });
    await app.request('POST', `/v1/deals/${one.id}/decision`, { key: a.api_key, body: { decision: 'approve' } });
    await app.drainEvents();
    expect(await stream.next()).toMatchObject({ event: 'deal.decision', data: { deal_id: one.id, decision: 'approve' } });
    expect(stream.pending()).toHaveLength(0);
    const foreign = await app.request('GET', `/v1/events/deals/${one.id}`, { key: b.api_key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('DEAL_NOT_FOUND');
    expect((await app.request('GET', `/v1/events/deals/${one.id}`, { key: a.test_api_key })).status).toBe(404);
    expect((await app.request('GET', '/v1/events/deals/abc', { key: a.api_key })).status).toBe(422);
  });

  it('replays what was missed after Last-Event-ID (header or query), then continues live', async () => {
    const first = await connect('/v1/events/stream', { 'X-API-Key': a.api_key });
    await first.next((m) => m.comments.includes('connected'));
    const d1 = await newDeal(a.api_key, 'Replay 1');
    await app.drainEvents();
    const seen = await first.next();
    first.close();
    const d2 = await newDeal(a.api_key, 'Replay 2');
    await app.request('POST', `/v1/deals/${d1.id}/decision`, { key: a.api_key, body: { decision: 'funded' } });
    await newDeal(b.api_key, 'Not for A');
    await app.drainEvents();
    expect(seen.data.deal_id).toBe(d1.id);
    const resumed = await connect('/v1/events/stream', { 'X-API-Key': a.api_key, 'Last-Event-ID': seen.id! });
    expect((await resumed.next()).data).toMatchObject({ deal_id: d2.id, type: 'deal.created' });
    expect((await resumed.next()).data).toMatchObject({ deal_id: d1.id, type: 'deal.decision' });
    const d3 = await newDeal(a.api_key, 'Replay 3');
    await app.drainEvents();
    expect((await resumed.next()).data.deal_id).toBe(d3.id);
    const viaQuery = await connect(`/v1/events/deals/${d1.id}?token=${encodeURIComponent(a.api_key)}&last_event_id=${seen.id}`);
    expect((await viaQuery.next()).data).toMatchObject({ deal_id: d1.id, decision: 'funded' });
    const bad = await app.request('GET', '/v1/events/stream', { key: a.api_key, headers: { 'Last-Event-ID': 'yesterday' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].loc).toEqual(['header', 'Last-Event-ID']);
  });

  it('replays a long absence page after page, in order, without gaps', async () => {
    const deal = await newDeal(a.api_key, 'Busy Deal');
    await app.drainEvents();
    const live = await connect(`/v1/events/deals/${deal.id}`, { 'X-API-Key': a.api_key });
    await live.next((m) => m.comments.includes('connected'));
    await app.request('PATCH', `/v1/deals/${deal.id}`, { key: a.api_key, body: { industry: 'start' } });
    await app.drainEvents();
    const mark = await live.next();
    live.close();
    const scope = { organizationId: a.organization.id, livemode: true };
    await app
      .get(Database)
      .forScope(scope)
      .transactional(async (tx) => {
        for (let i = 0; i < 1203; i++)
          recordEvent(tx, scope, 'deal.updated', { dealId: deal.id, data: { deal_id: deal.id, changed_fields: [`f${i}`] } });
      });
    await app.drainEvents(); // dispatched while nobody listens: later tests' streams must not receive them
    const resumed = await connect(`/v1/events/deals/${deal.id}`, { 'X-API-Key': a.api_key, 'Last-Event-ID': mark.id! });
    const got: string[] = [];
    for (let i = 0; i < 1203; i++) got.push((await resumed.next()).data.changed_fields[0]);
    expect(got).toEqual(Array.from({ length: 1203 }, (_, i) => `f${i}`));
  });

  it('sends heartbeat comments', async () => {
    const stream = await connect('/v1/events/stream', { 'X-API-Key': a.api_key });
    expect((await stream.next((m) => m.comments.includes('ping'))).comments).toEqual(['ping']);
  });

  it('needs a credential with deals:read; ?token= is accepted on stream paths only', async () => {
    expect((await app.request('GET', '/v1/events/stream')).status).toBe(401);
    expect((await app.request('GET', '/v1/events/stream?token=ll_live_wrong')).body.code).toBe('INVALID_API_KEY');
    expect((await app.request('GET', `/v1/deals?token=${encodeURIComponent(a.api_key)}`)).status).toBe(401);
    const hooksOnly = (await app.request('POST', '/v1/keys', { key: a.api_key, body: { name: 'hooks', scopes: ['webhooks:read'] } })).body
      .key as string;
    expect((await app.request('GET', '/v1/events/stream', { key: hooksOnly })).status).toBe(403);
  });

  it('forgets a stream when its client disconnects', async () => {
    const before = app.get(StreamService).openConnections;
    const stream = await connect('/v1/events/stream', { 'X-API-Key': a.api_key });
    await stream.next((m) => m.comments.includes('connected'));
    expect(app.get(StreamService).openConnections).toBe(before + 1);
    stream.close();
    await stream.next(() => false).catch(() => undefined);
    while (app.get(StreamService).openConnections > before) await new Promise((r) => setImmediate(r));
  });

  const real = realDatabaseUrl() && realRedisUrl() ? it : it.skip;
  real('fans events out across two server processes through Redis pub/sub', async () => {
    const second = await app.sibling();
    try {
      expect(second.get(EventBus)).toBeInstanceOf(RedisEventBus);
      await (second.get(EventBus) as RedisEventBus).connect();
      const onSecond = await connect('/v1/events/stream', { 'X-API-Key': a.api_key }, second);
      const otherOrg = await connect('/v1/events/stream', { 'X-API-Key': b.api_key }, second);
      await onSecond.next((m) => m.comments.includes('connected'));
      await otherOrg.next((m) => m.comments.includes('connected'));
      // Written and dispatched by the first process; streamed by the second.
      const deal = await newDeal(a.api_key, 'Across Processes');
      await app.drainEvents();
      expect(await onSecond.next()).toMatchObject({ event: 'deal.created', data: { deal_id: deal.id } });
      const marker = await newDeal(b.api_key, 'B marker', second);
      await second.drainEvents();
      expect((await otherOrg.next()).data.deal_id).toBe(marker.id);
      // Stopping a server ends its open streams (it does not wait for clients to leave).
      await second.close();
      await expect(onSecond.next(() => false)).rejects.toThrow('stream ended');
    } finally {
      await second.close();
    }
  });
});
