import { LAYOUTS } from '../../../tools/corpus/layouts';
import { makeStatement } from '../../../tools/corpus/corpus';
import { Comment, TimelineEntry } from '../src/modules/collaboration/collaboration.entities';
import { CollaborationFeed } from '../src/modules/collaboration/collaboration-feed.service';
import { Database } from '../src/platform/database/database.service';
import { EventDispatcher } from '../src/platform/events/event-dispatcher';
import { DomainEventRecord } from '../src/platform/events/outbox.entity';
import { recordEvent, toDomainEvent } from '../src/platform/events/events';
import { JobQueue } from '../src/platform/queue/job-queue';
import { KeysService } from '../src/modules/keys/keys.service';
import { TestApp } from './support/harness';
import { Receiver } from './support/receiver';

type Org = Awaited<ReturnType<TestApp['newOrg']>>;
type Member = Awaited<ReturnType<TestApp['newUser']>>;

const SECRET = 'whsec_Y29sbGFib3JhdGlvbi1zZWNyZXQtZm9yLXRlc3Rz';

/**
 * Collaboration end to end over HTTP: assignments, comments, document requests, the timeline and
 * activity, notifications. Everything beyond the rows a request writes comes from the outbox
 * (CollaborationFeed), so each test drains the events before reading the results.
 */
describe('collaboration', () => {
  let app: TestApp;
  let receiver: Receiver;
  let org: Org;
  let other: Org;
  let uw1: Member;
  let uw2: Member;
  let manager: Member;
  let reviewer: Member;
  let outsider: Member;
  let pdf: Uint8Array;

  const admin = () => org.api_key;
  const newDeal = async (key: string, name = 'Collab Bakery LLC'): Promise<number> =>
    (await app.request('POST', '/v1/deals', { key, body: { business_name: name, funding_amount_requested: 20000 } })).body.id;
  const assign = (key: string, dealId: number, body: Record<string, unknown>) =>
    app.request('POST', `/v1/deals/${dealId}/assignments`, { key, body });
  const comment = (key: string, dealId: number, body: Record<string, unknown>) =>
    app.request('POST', `/v1/deals/${dealId}/comments`, { key, body });
  const notifications = async (key: string, query = '') => {
    await app.drainEvents();
    return (await app.request('GET', `/v1/notifications${query}`, { key })).body as {
      data: { id: number; type: string; title: string; message: string; deal_id: number; read: boolean }[];
      meta: { total: number };
    };
  };
  const timeline = async (dealId: number, query = '', key = admin()) => {
    await app.drainEvents();
    return (await app.request('GET', `/v1/deals/${dealId}/timeline${query}`, { key })).body as {
      data: { id: number; event_type: string; type: string; actor: string; metadata: Record<string, unknown>; created_at: string }[];
      meta: { total: number; per_page: number; total_pages: number };
    };
  };
  const upload = async (key: string, dealId: number) => {
    const form = new FormData();
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'statement.pdf');
    const res = await app.request('POST', `/v1/deals/${dealId}/documents`, { key, form });
    expect(res.status).toBe(201);
    await app.settle();
    return res.body.id as number;
  };

  beforeAll(async () => {
    app = await TestApp.start({
      OUTBOUND_ALLOWLIST: '127.0.0.1/32',
      RATE_LIMIT_STANDARD: '100000',
      RATE_LIMIT_WRITE: '100000',
      RATE_LIMIT_UPLOAD: '100000',
    });
    receiver = await Receiver.start(() => SECRET);
    org = await app.newOrg('Collab');
    other = await app.newOrg('Collab Other');
    uw1 = await app.newUser(org.organization.id, 'underwriter');
    uw2 = await app.newUser(org.organization.id, 'underwriter');
    manager = await app.newUser(org.organization.id, 'manager');
    reviewer = await app.newUser(org.organization.id, 'reviewer');
    outsider = await app.newUser(other.organization.id, 'underwriter');
    pdf = (
      await makeStatement(
        LAYOUTS.find((l) => l.name === 'sectioned_unsigned')!,
        21,
        12,
      )
    ).bytes;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  describe('assignments', () => {
    it('assigns with the default role reviewer (201), and assigning again replaces the role (200, one assignment)', async () => {
      const dealId = await newDeal(admin());
      const first = await assign(admin(), dealId, { user_id: uw1.user.id });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ deal_id: dealId, user_id: uw1.user.id, role: 'reviewer', user_email: uw1.user.email });
      expect(Date.parse(first.body.assigned_at)).not.toBeNaN();
      const again = await assign(admin(), dealId, { user_id: uw1.user.id, role: 'manager' });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, role: 'manager' });
      expect((await assign(admin(), dealId, { user_id: uw2.user.id, role: 'admin' })).body.role).toBe('admin');
      const list = await app.request('GET', `/v1/deals/${dealId}/assignments`, { key: admin() });
      expect(list.body.data.map((a: { user_id: number; role: string }) => [a.user_id, a.role])).toEqual([
        [uw1.user.id, 'manager'],
        [uw2.user.id, 'admin'],
      ]);
    });

    it('rejects an unknown role (422) and a user of another organization or no user at all (404)', async () => {
      const dealId = await newDeal(admin());
      expect((await assign(admin(), dealId, { user_id: uw1.user.id, role: 'owner' })).status).toBe(422);
      expect((await assign(admin(), dealId, {})).status).toBe(422);
      const foreign = await assign(admin(), dealId, { user_id: outsider.user.id });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('NOT_FOUND');
      expect((await assign(admin(), dealId, { user_id: 999_999 })).status).toBe(404);
      expect((await app.request('GET', `/v1/deals/${dealId}/assignments`, { key: admin() })).body.data).toEqual([]);
    });

    it("is 404 on another organization's deal and 403 for a read-only credential", async () => {
      const dealId = await newDeal(admin());
      const cross = await assign(other.api_key, dealId, { user_id: outsider.user.id });
      expect(cross.status).toBe(404);
      expect(cross.body.code).toBe('DEAL_NOT_FOUND');
      expect((await app.request('GET', `/v1/deals/${dealId}/assignments`, { key: other.api_key })).status).toBe(404);
      expect((await app.request('GET', `/v1/deals/${dealId}/assignments`, { key: org.test_api_key })).status).toBe(404);
      const readOnly = await assign(reviewer.api_key, dealId, { user_id: reviewer.user.id });
      expect(readOnly.status).toBe(403);
      expect(readOnly.body.code).toBe('FORBIDDEN');
    });

    it('removes by user id (Form A, 200 acknowledgement) and by assignment id (Form B, 204)', async () => {
      const dealId = await newDeal(admin());
      await assign(admin(), dealId, { user_id: uw1.user.id });
      const b = (await assign(admin(), dealId, { user_id: uw2.user.id, role: 'underwriter' })).body;
      const byUser = await app.request('DELETE', `/v1/deals/${dealId}/assignments/${uw1.user.id}`, { key: admin() });
      expect(byUser.status).toBe(200);
      expect(byUser.body).toMatchObject({ status: 'ok', success: true, deal_id: dealId, user_id: uw1.user.id });
      expect((await app.request('DELETE', `/v1/deals/${dealId}/assignments/${uw1.user.id}`, { key: admin() })).status).toBe(404);
      expect((await app.request('DELETE', `/v1/assignments/${b.id}`, { key: other.api_key })).status).toBe(404);
      const byId = await app.request('DELETE', `/v1/assignments/${b.id}`, { key: admin() });
      expect(byId.status).toBe(204);
      expect((await app.request('DELETE', `/v1/assignments/${b.id}`, { key: admin() })).status).toBe(404);
      expect((await app.request('GET', `/v1/deals/${dealId}/assignments`, { key: admin() })).body.data).toEqual([]);
    });

    it('/me/assigned-deals lists the caller’s deals with role, newest assignment first, in the caller’s organization and mode only', async () => {
      const d1 = await newDeal(admin(), 'Mine One');
      const d2 = await newDeal(admin(), 'Mine Two');
      await assign(admin(), d1, { user_id: manager.user.id, role: 'underwriter' });
      await assign(admin(), d2, { user_id: manager.user.id, role: 'manager' });
      const mine = await app.request('GET', '/v1/me/assigned-deals', { key: manager.api_key });
      expect(mine.status).toBe(200);
      expect(mine.body.data.map((d: { id: number; business_name: string; role: string }) => [d.id, d.business_name, d.role])).toEqual([
        [d2, 'Mine Two', 'manager'],
        [d1, 'Mine One', 'underwriter'],
      ]);
      expect(mine.body.data[0]).toMatchObject({ status: 'new', health_score: null, health_grade: null });
      expect(mine.body.meta).toMatchObject({ page: 1, total: 2 });
      expect((await app.request('GET', '/v1/me/assigned-deals', { key: reviewer.api_key })).body.data).toEqual([]);
      expect((await app.request('GET', '/v1/me/assigned-deals', { key: outsider.api_key })).body.data).toEqual([]);
    });

    it('GET /v1/assignments?deal_ids= gives a list page its assignees in one request, only of deals the caller sees', async () => {
      const [a, b, none] = [await newDeal(admin(), 'Page A'), await newDeal(admin(), 'Page B'), await newDeal(admin(), 'Page C')];
      await assign(admin(), a, { user_id: uw1.user.id, role: 'underwriter' });
      await assign(admin(), a, { user_id: uw2.user.id });
      await assign(admin(), b, { user_id: manager.user.id, role: 'manager' });
      const third = await app.newOrg('Collab Third');
      const foreign = await newDeal(third.api_key, 'Not yours');
      await assign(third.api_key, foreign, { user_id: third.user.id });
      const res = await app.request('GET', `/v1/assignments?deal_ids=${a},${b}&deal_ids=${none}&deal_ids=${foreign}`, {
        key: reviewer.api_key,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.map((x: { deal_id: number; user_id: number; role: string }) => [x.deal_id, x.user_id, x.role])).toEqual([
        [a, uw1.user.id, 'underwriter'],
        [a, uw2.user.id, 'reviewer'],
        [b, manager.user.id, 'manager'],
      ]);
      expect(res.body.data[0]).toMatchObject({ user_email: uw1.user.email });
      expect((await app.request('GET', '/v1/assignments', { key: admin() })).body).toEqual({ data: [] });
      const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
      expect((await app.request('GET', `/v1/assignments?deal_ids=${tooMany}`, { key: admin() })).status).toBe(422);
      expect((await app.request('GET', '/v1/assignments?deal_ids=1,x', { key: admin() })).status).toBe(422);
    });
  });

  describe('comments', () => {
    it('takes body (Form A) or content (Form B), nests replies one level deep, and lists chronologically', async () => {
      const dealId = await newDeal(admin());
      const top = await comment(uw1.api_key, dealId, { body: 'First look: deposits are steady' });
      expect(top.status).toBe(201);
      expect(top.body).toMatchObject({
        deal_id: dealId,
        user_id: uw1.user.id,
        user_name: uw1.user.email,
        body: 'First look: deposits are steady',
        content: 'First look: deposits are steady',
        parent_id: null,
        replies: [],
        deleted_at: null,
      });
      const second = await comment(uw2.api_key, dealId, { content: 'Second thread' });
      const reply = await comment(uw2.api_key, dealId, { content: 'Agreed', parent_id: top.body.id });
      expect(reply.status).toBe(201);
      expect(reply.body.parent_id).toBe(top.body.id);
      expect(reply.body.replies).toBeUndefined();
      const nested = await comment(uw1.api_key, dealId, { body: 'Reply to a reply', parent_id: reply.body.id });
      expect(nested.status).toBe(422);
      expect(nested.body.errors[0].loc).toEqual(['body', 'parent_id']);
      const list = await app.request('GET', `/v1/deals/${dealId}/comments`, { key: reviewer.api_key });
      expect(list.body.data.map((c: { id: number }) => c.id)).toEqual([top.body.id, second.body.id]);
      expect(list.body.data[0].replies.map((r: { id: number; content: string }) => [r.id, r.content])).toEqual([[reply.body.id, 'Agreed']]);
      expect(list.body.meta.total).toBe(2);
    });

    it('rejects blank or oversized text and a parent of another deal (422)', async () => {
      const dealId = await newDeal(admin());
      const elsewhere = (await comment(uw1.api_key, await newDeal(admin()), { body: 'elsewhere' })).body.id;
      expect((await comment(uw1.api_key, dealId, {})).status).toBe(422);
      expect((await comment(uw1.api_key, dealId, { body: '   ' })).status).toBe(422);
      expect((await comment(uw1.api_key, dealId, { body: 'x'.repeat(10_001) })).status).toBe(422);
      expect((await comment(uw1.api_key, dealId, { body: 'x'.repeat(10_000) })).status).toBe(201);
      expect((await comment(uw1.api_key, dealId, { body: 'lost', parent_id: elsewhere })).status).toBe(422);
      // An unpaired surrogate is a 422 for every body (platform validation), so no comment event's jsonb ever sees one.
      expect((await comment(uw1.api_key, dealId, { body: 'half a pair: \ud800' })).status).toBe(422);
    });

    it('edits by the author only (403 otherwise), on both paths', async () => {
      const dealId = await newDeal(admin());
      const c = (await comment(uw1.api_key, dealId, { body: 'draft' })).body;
      const denied = await app.request('PATCH', `/v1/deals/${dealId}/comments/${c.id}`, { key: admin(), body: { body: 'hijack' } });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('FORBIDDEN');
      expect((await app.request('PATCH', `/v1/comments/${c.id}`, { key: uw2.api_key, body: { content: 'hijack' } })).status).toBe(403);
      const edited = await app.request('PATCH', `/v1/deals/${dealId}/comments/${c.id}`, { key: uw1.api_key, body: { body: 'final' } });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ id: c.id, body: 'final', content: 'final' });
      expect(Date.parse(edited.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
      const formB = await app.request('PATCH', `/v1/comments/${c.id}`, { key: uw1.api_key, body: { content: 'final, really' } });
      expect(formB.body.body).toBe('final, really');
      expect((await app.request('PATCH', `/v1/comments/${c.id}`, { key: uw1.api_key, body: {} })).status).toBe(422);
    });

    it('soft-deletes: author only on the Form A path (200), author or admin on the Form B path (204); hidden from lists, kept for audit', async () => {
      const dealId = await newDeal(admin());
      const mine = (await comment(uw1.api_key, dealId, { body: 'mine' })).body;
      const theirs = (await comment(uw2.api_key, dealId, { body: 'theirs' })).body;
      const kept = (await comment(uw2.api_key, dealId, { body: 'kept' })).body;
      expect((await app.request('DELETE', `/v1/deals/${dealId}/comments/${theirs.id}`, { key: admin() })).status).toBe(403);
      expect((await app.request('DELETE', `/v1/comments/${theirs.id}`, { key: uw1.api_key })).status).toBe(403);
      const formA = await app.request('DELETE', `/v1/deals/${dealId}/comments/${mine.id}`, { key: uw1.api_key });
      expect(formA.status).toBe(200);
      expect(formA.body).toMatchObject({ status: 'ok', success: true, id: mine.id, deal_id: dealId });
      expect((await app.request('DELETE', `/v1/comments/${theirs.id}`, { key: admin() })).status).toBe(204);
      expect((await app.request('DELETE', `/v1/comments/${theirs.id}`, { key: admin() })).status).toBe(404);
      expect((await app.request('PATCH', `/v1/comments/${mine.id}`, { key: uw1.api_key, body: { body: 'undo' } })).status).toBe(404);
      const list = await app.request('GET', `/v1/deals/${dealId}/comments`, { key: admin() });
      expect(list.body.data.map((c: { id: number }) => c.id)).toEqual([kept.id]);
      const rows = await app
        .get(Database)
        .forScope({ organizationId: org.organization.id, livemode: true })
        .find(Comment, { id: { $in: [mine.id, theirs.id] } }, { orderBy: { id: 'asc' } });
      expect(rows.map((r) => [r.body, r.deletedAt !== null, r.deletedBy])).toEqual([
        ['mine', true, uw1.user.id],
        ['theirs', true, org.user.id],
      ]);
      const activity = await timeline(dealId);
      expect(activity.data.filter((e) => e.event_type === 'comment.deleted').map((e) => e.metadata.comment_id)).toEqual([
        theirs.id,
        mine.id,
      ]);
    });

    it('is 404 to another organization on every comment path', async () => {
      const dealId = await newDeal(admin());
      const c = (await comment(uw1.api_key, dealId, { body: 'private' })).body;
      const key = outsider.api_key;
      expect((await app.request('GET', `/v1/deals/${dealId}/comments`, { key })).status).toBe(404);
      expect((await comment(key, dealId, { body: 'intrude' })).status).toBe(404);
      expect((await app.request('PATCH', `/v1/deals/${dealId}/comments/${c.id}`, { key, body: { body: 'x' } })).status).toBe(404);
      expect((await app.request('PATCH', `/v1/comments/${c.id}`, { key, body: { body: 'x' } })).status).toBe(404);
      expect((await app.request('DELETE', `/v1/comments/${c.id}`, { key })).status).toBe(404);
      expect((await app.request('DELETE', `/v1/deals/${dealId}/comments/${c.id}`, { key })).status).toBe(404);
      expect((await app.request('GET', `/v1/deals/${dealId}/comments`, { key: admin() })).body.data[0].body).toBe('private');
    });

    it('notifies users mentioned by email or handle, not the author and not outsiders; an edit notifies only newly mentioned users', async () => {
      const dealId = await newDeal(admin(), 'Mention Co');
      const handle = uw2.user.email.split('@')[0];
      const before = (await notifications(uw2.api_key)).meta.total;
      const c = await comment(uw1.api_key, dealId, {
        body: `@${handle} please check the NSFs; cc @${manager.user.email}, @${uw1.user.email} and @${outsider.user.email}`,
      });
      expect(c.body.mentioned_user_ids).toEqual([uw2.user.id, manager.user.id, uw1.user.id]);
      const got = await notifications(uw2.api_key);
      expect(got.meta.total).toBe(before + 1);
      expect(got.data[0]).toMatchObject({ type: 'comment.mention', deal_id: dealId, read: false });
      expect(got.data[0].title).toContain('Mention Co');
      expect(got.data[0].message).toContain('please check the NSFs');
      expect((await notifications(manager.api_key)).data.filter((n) => n.deal_id === dealId).map((n) => n.type)).toEqual([
        'comment.mention',
      ]);
      expect((await notifications(uw1.api_key)).data.filter((n) => n.deal_id === dealId)).toEqual([]);
      expect((await notifications(outsider.api_key)).data).toEqual([]);
      await app.request('PATCH', `/v1/comments/${c.body.id}`, {
        key: uw1.api_key,
        body: { body: `@${handle} again, and now @${reviewer.user.email}` },
      });
      expect((await notifications(uw2.api_key)).meta.total).toBe(before + 1);
      expect((await notifications(reviewer.api_key)).data.filter((n) => n.deal_id === dealId).map((n) => n.type)).toEqual([
        'comment.mention',
      ]);
    });

    it('an emoji across the excerpt cut: the comment is saved, edited and notified whole (no lone surrogate)', async () => {
      const dealId = await newDeal(admin(), 'Emoji Cut Co');
      const mention = `@${uw2.user.email.split('@')[0]} `;
      // the emoji's two UTF-16 units sit at 198 and 199: a cut at 199 would split them
      const text = (tail: string) => `${mention}${'a'.repeat(198 - mention.length)}😀${tail.repeat(10)}`;
      const before = (await notifications(uw2.api_key)).meta.total;
      const created = await comment(uw1.api_key, dealId, { body: text('b') });
      expect(created.status).toBe(201);
      expect(created.body.body).toBe(text('b'));
      const edited = await app.request('PATCH', `/v1/comments/${created.body.id}`, { key: uw1.api_key, body: { body: text('c') } });
      expect(edited.status).toBe(200);
      expect(edited.body.body).toBe(text('c'));
      const got = await notifications(uw2.api_key);
      expect(got.meta.total).toBe(before + 1);
      expect(got.data[0].message).toBe(`${text('b').slice(0, 198)}…`);
      const lines = (await timeline(dealId)).data.filter((l) => l.event_type.startsWith('comment.'));
      expect(lines.map((l) => l.event_type).sort()).toEqual(['comment.added', 'comment.updated']);
    });
  });

  describe('document requests', () => {
    it('creates in both forms (201 pending), lists, and validates type, text and due date', async () => {
      const dealId = await newDeal(admin());
      const a = await app.request('POST', `/v1/deals/${dealId}/doc-requests`, {
        key: admin(),
        body: { document_type: 'bank_statement', message: 'Last three months please' },
      });
      expect(a.status).toBe(201);
      expect(a.body).toMatchObject({
        deal_id: dealId,
        document_type: 'bank_statement',
        message: 'Last three months please',
        description: 'Last three months please',
        status: 'pending',
        due_date: null,
        overdue: false,
        fulfilled_at: null,
        requested_by: org.user.id,
      });
      const b = await app.request('POST', `/v1/deals/${dealId}/doc-requests`, {
        key: admin(),
        body: { document_type: 'pnl_statement', description: 'YTD P&L', due_date: '2000-01-31' },
      });
      expect(b.body).toMatchObject({ document_type: 'profit_and_loss', description: 'YTD P&L', due_date: '2000-01-31', overdue: true });
      const post = (body: unknown) => app.request('POST', `/v1/deals/${dealId}/doc-requests`, { key: admin(), body });
      expect((await post({ document_type: 'selfie' })).status).toBe(422);
      expect((await post({ document_type: 'tax_return', due_date: '2026-02-30' })).status).toBe(422);
      expect((await post({ document_type: 'tax_return', due_date: 'tomorrow' })).status).toBe(422);
      expect((await post({ document_type: 'tax_return', message: 'm'.repeat(2001) })).status).toBe(422);
      const list = await app.request('GET', `/v1/deals/${dealId}/doc-requests`, { key: reviewer.api_key });
      expect(list.body.data.map((r: { id: number }) => r.id)).toEqual([a.body.id, b.body.id]);
    });

    it('PATCH sets any of the three statuses, fulfilled_at follows; 404 across organizations, 403 read-only', async () => {
      const dealId = await newDeal(admin());
      const r = (await app.request('POST', `/v1/deals/${dealId}/doc-requests`, { key: admin(), body: { document_type: 'tax_return' } }))
        .body;
      const patch = (key: string, status: unknown) => app.request('PATCH', `/v1/doc-requests/${r.id}`, { key, body: { status } });
      expect((await patch(other.api_key, 'cancelled')).status).toBe(404);
      expect((await patch(reviewer.api_key, 'cancelled')).status).toBe(403);
      expect((await patch(admin(), 'lost')).status).toBe(422);
      const done = await patch(admin(), 'fulfilled');
      expect(done.status).toBe(200);
      expect(done.body.status).toBe('fulfilled');
      expect(Date.parse(done.body.fulfilled_at)).not.toBeNaN();
      const back = await patch(admin(), 'pending');
      expect(back.body).toMatchObject({ status: 'pending', fulfilled_at: null });
      expect((await patch(admin(), 'cancelled')).body.status).toBe('cancelled');
      expect((await app.request('GET', `/v1/deals/${dealId}/doc-requests`, { key: other.api_key })).status).toBe(404);
      expect(
        (await app.request('POST', `/v1/deals/${dealId}/doc-requests`, { key: other.api_key, body: { document_type: 'tax_return' } }))
          .status,
      ).toBe(404);
    });
  });

  describe('a deal worked on together: timeline, activity, notifications, fulfilment', () => {
    let dealId: number;
    let documentId: number;
    let requestId: number;
    let otherRequestId: number;

    beforeAll(async () => {
      dealId = await newDeal(admin(), 'Timeline Foods');
      await assign(admin(), dealId, { user_id: uw1.user.id, role: 'underwriter' });
      await assign(admin(), dealId, { user_id: uw2.user.id });
      await app.request('DELETE', `/v1/deals/${dealId}/assignments/${uw2.user.id}`, { key: admin() });
      requestId = (
        await app.request('POST', `/v1/deals/${dealId}/doc-requests`, { key: admin(), body: { document_type: 'bank_statement' } })
      ).body.id;
      otherRequestId = (
        await app.request('POST', `/v1/deals/${dealId}/doc-requests`, { key: admin(), body: { document_type: 'tax_return' } })
      ).body.id;
      await comment(uw1.api_key, dealId, { body: 'Looking at it' });
      documentId = await upload(admin(), dealId);
      expect((await app.request('POST', `/v1/deals/${dealId}/decision`, { key: admin(), body: { decision: 'approve' } })).status).toBe(200);
      await app.drainEvents();
    }, 60_000);

    it('fulfils the pending request of the uploaded type (fulfilled_at set), not the others', async () => {
      const list = (await app.request('GET', `/v1/deals/${dealId}/doc-requests`, { key: admin() })).body.data;
      const byId = new Map(list.map((r: { id: number }) => [r.id, r]));
      expect(byId.get(requestId)).toMatchObject({ status: 'fulfilled', fulfilled_document_id: documentId });
      expect(Date.parse((byId.get(requestId) as { fulfilled_at: string }).fulfilled_at)).not.toBeNaN();
      expect(byId.get(otherRequestId)).toMatchObject({ status: 'pending', fulfilled_at: null });
    });

    it('Form A timeline: newest first, 50 per page, with the spec event types and metadata', async () => {
      const t = await timeline(dealId);
      expect(t.meta.per_page).toBe(50);
      const times = t.data.map((e) => Date.parse(e.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const types = t.data.map((e) => e.event_type);
      expect(types).toEqual(
        expect.arrayContaining([
          'deal.created',
          'deal.assigned',
          'deal.unassigned',
          'comment.added',
          'document.uploaded',
          'document.completed',
          'deal.status_changed',
          'document_request.created',
          'document_request.fulfilled',
          'deal.decision_set',
        ]),
      );
      expect(types[0]).toBe('deal.decision_set');
      expect(types[types.length - 1]).toBe('deal.created');
      expect(t.data.find((e) => e.event_type === 'deal.decision_set')!.metadata).toMatchObject({ decision: 'approve' });
      expect(t.data.find((e) => e.event_type === 'document.uploaded')!.metadata).toMatchObject({ document_id: documentId });
      const assigned = t.data.find((e) => e.event_type === 'deal.assigned' && e.metadata.user_id === uw1.user.id)!;
      expect(assigned).toMatchObject({ type: 'assignment', actor: org.user.email, metadata: { role: 'underwriter' } });
      expect(t.data.find((e) => e.event_type === 'comment.added')).toMatchObject({ type: 'comment', actor: uw1.user.email });
      expect(t.data.filter((e) => e.event_type === 'deal.status_changed').map((e) => e.metadata.status)).toEqual(['ready', 'processing']);
      const page2 = await timeline(dealId, '?per_page=3&page=2');
      expect(page2.data.map((e) => e.id)).toEqual(t.data.slice(3, 6).map((e) => e.id));
      expect((await app.request('GET', `/v1/deals/${dealId}/timeline?page=99`, { key: admin() })).status).toBe(422);
    });

    it('Form B: the chronological stream (order=asc) carries type, timestamp and details', async () => {
      const desc = await timeline(dealId);
      const asc = await timeline(dealId, '?order=asc');
      expect(asc.data.map((e) => e.id)).toEqual([...desc.data].reverse().map((e) => e.id));
      const upload = asc.data.find((e) => e.type === 'document_uploaded') as unknown as Record<string, unknown>;
      expect(upload).toMatchObject({ actor: org.user.email, details: { document_id: documentId } });
      expect(upload.timestamp).toBe(upload.created_at);
      expect(asc.data[0].type).toBe('status_change');
    });

    it('activity: deal-level audit records and the organization feed with business_name, both scoped', async () => {
      const activity = await app.request('GET', `/v1/deals/${dealId}/activity`, { key: reviewer.api_key });
      expect(activity.body.meta.per_page).toBe(50);
      expect(activity.body.data[0]).toMatchObject({
        deal_id: dealId,
        action: 'deal.decision_set',
        actor_id: org.user.id,
        actor_name: org.user.email,
      });
      const feed = await app.request('GET', '/v1/activity?per_page=100', { key: admin() });
      const mine = feed.body.data.filter((e: { deal_id: number }) => e.deal_id === dealId);
      expect(mine.length).toBe((await timeline(dealId)).meta.total);
      expect(mine[0]).toMatchObject({ business_name: 'Timeline Foods', event_type: 'deal.decision_set' });
      const times = feed.body.data.map((e: { created_at: string }) => Date.parse(e.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect((await app.request('GET', '/v1/activity', { key: other.api_key })).body.data).toEqual([]);
      expect((await app.request('GET', '/v1/activity', { key: org.test_api_key })).body.data).toEqual([]);
      expect((await app.request('GET', `/v1/deals/${dealId}/activity`, { key: other.api_key })).status).toBe(404);
      expect((await app.request('GET', `/v1/deals/${dealId}/timeline`, { key: other.api_key })).status).toBe(404);
    });

    it('notifies the assignee on assignment and the current assignees on status changes; an unassigned user gets none', async () => {
      const uw1Notes = (await notifications(uw1.api_key)).data.filter((n) => n.deal_id === dealId);
      expect(uw1Notes.map((n) => n.type)).toEqual(['deal.status_changed', 'deal.status_changed', 'deal.assigned']);
      expect(uw1Notes[0].title).toBe('Timeline Foods is now ready');
      expect(uw1Notes[2].message).toContain('as underwriter');
      const uw2Notes = (await notifications(uw2.api_key)).data.filter((n) => n.deal_id === dealId);
      expect(uw2Notes.map((n) => n.type)).toEqual(['deal.assigned']);
    });

    it('unread_only and mark-read ({data: {marked}}) on the caller’s own notifications only', async () => {
      const all = await notifications(uw1.api_key);
      const unread = await notifications(uw1.api_key, '?unread_only=true');
      expect(unread.meta.total).toBe(all.meta.total);
      const someoneElses = (await notifications(uw2.api_key)).data[0].id;
      const ids = all.data.slice(0, 2).map((n) => n.id);
      const marked = await app.request('POST', '/v1/notifications/mark-read', {
        key: uw1.api_key,
        body: { notification_ids: [...ids, someoneElses] },
      });
      expect(marked.status).toBe(200);
      expect(marked.body).toEqual({ data: { marked: 2 } });
      expect(
        (await app.request('POST', '/v1/notifications/mark-read', { key: uw1.api_key, body: { notification_ids: ids } })).body,
      ).toEqual({ data: { marked: 0 } });
      expect((await notifications(uw1.api_key, '?unread_only=true')).meta.total).toBe(all.meta.total - 2);
      expect((await notifications(uw1.api_key)).data.filter((n) => ids.includes(n.id)).every((n) => n.read)).toBe(true);
      expect((await notifications(uw2.api_key)).data.find((n) => n.id === someoneElses)!.read).toBe(false);
      expect((await app.request('POST', '/v1/notifications/mark-read', { key: uw1.api_key, body: { notification_ids: [] } })).status).toBe(
        422,
      );
      expect((await app.request('POST', '/v1/notifications/mark-read', { key: uw1.api_key, body: {} })).status).toBe(422);
    });
  });

  describe('who and where', () => {
    it('a credential that belongs to no user may assign, but not comment or read notifications (403)', async () => {
      const em = app.get(Database).system();
      const { plaintext } = app.get(KeysService).issue(em, {
        organizationId: org.organization.id,
        userId: null,
        name: 'Integration key',
        livemode: true,
        scopes: ['read', 'write'],
      });
      await em.flush();
      const dealId = await newDeal(plaintext, 'Keyed');
      const assigned = await assign(plaintext, dealId, { user_id: uw1.user.id });
      expect(assigned.status).toBe(201);
      expect(assigned.body.assigned_by).toBeNull();
      for (const res of [
        await comment(plaintext, dealId, { body: 'from a key' }),
        await app.request('GET', '/v1/notifications', { key: plaintext }),
        await app.request('POST', '/v1/notifications/mark-read', { key: plaintext, body: { notification_ids: [1] } }),
        await app.request('GET', '/v1/me/assigned-deals', { key: plaintext }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('FORBIDDEN');
      }
      expect((await timeline(dealId)).data.find((e) => e.event_type === 'deal.assigned')!.actor).toBe('API key Integration key');
    });

    it('sandbox (test-key) collaboration stays in the sandbox: the live side never sees it', async () => {
      const testDeal = await newDeal(org.test_api_key, 'Sandbox Deal');
      await assign(org.test_api_key, testDeal, { user_id: uw1.user.id });
      await comment(org.test_api_key, testDeal, { body: `@${uw2.user.email} sandbox` });
      expect((await timeline(testDeal, '', org.test_api_key)).data.map((e) => e.event_type)).toEqual([
        'comment.added',
        'deal.assigned',
        'deal.created',
      ]);
      expect((await app.request('GET', `/v1/deals/${testDeal}/timeline`, { key: admin() })).status).toBe(404);
      expect(
        (await app.request('GET', '/v1/activity?per_page=100', { key: admin() })).body.data.map((e: { deal_id: number }) => e.deal_id),
      ).not.toContain(testDeal);
      expect((await notifications(uw1.api_key)).data.map((n) => n.deal_id)).not.toContain(testDeal);
      expect((await notifications(uw2.api_key)).data.map((n) => n.deal_id)).not.toContain(testDeal);
    });

    it('deleting a deal deletes its collaboration records, and its late events are ignored', async () => {
      const dealId = await newDeal(admin(), 'Short Lived');
      await assign(admin(), dealId, { user_id: uw1.user.id });
      await comment(uw1.api_key, dealId, { body: 'soon gone' });
      await app.drainEvents();
      expect((await notifications(uw1.api_key)).data.map((n) => n.deal_id)).toContain(dealId);
      expect((await app.request('DELETE', `/v1/deals/${dealId}`, { key: admin() })).status).toBe(200);
      const scope = { organizationId: org.organization.id, livemode: true };
      const em = app.get(Database).forScope(scope);
      recordEvent(em, scope, 'comment.added', { dealId, actor: `user:${uw1.user.id}`, data: { deal_id: dealId, comment_id: 1 } });
      await em.flush();
      await app.drainEvents();
      expect(await app.get(Database).forScope(scope).count(TimelineEntry, { dealId })).toBe(0);
      expect(await app.get(Database).forScope(scope).count(Comment, { dealId })).toBe(0);
      expect((await notifications(uw1.api_key)).data.map((n) => n.deal_id)).not.toContain(dealId);
      expect(
        (await app.request('GET', '/v1/me/assigned-deals', { key: uw1.api_key })).body.data.map((d: { id: number }) => d.id),
      ).not.toContain(dealId);
    });
  });

  describe('the feed is event-driven and applies each event once', () => {
    it('delivers each notification by webhook as notification.created', async () => {
      expect(
        (
          await app.request('PUT', '/v1/webhooks/config', {
            key: admin(),
            body: { url: receiver.url, secret: SECRET, events: ['notification.created'] },
          })
        ).status,
      ).toBe(200);
      const dealId = await newDeal(admin(), 'Hooked Notes');
      const seen = receiver.received.length;
      await assign(admin(), dealId, { user_id: manager.user.id, role: 'manager' });
      await app.drainEvents();
      await app.get(JobQueue).idle();
      await receiver.waitFor(seen + 1);
      const got = receiver.received.slice(seen).map((r) => r.event!);
      expect(got).toHaveLength(1);
      expect(got[0]).toMatchObject({
        type: 'notification.created',
        deal_id: dealId,
        data: { type: 'deal.assigned', user_id: manager.user.id, user_email: manager.user.email, deal_id: dealId },
      });
      const note = (await notifications(manager.api_key)).data.find((n) => n.deal_id === dealId)!;
      expect(got[0].data).toMatchObject({ notification_id: note.id, title: note.title, message: note.message });
      await app.request('DELETE', '/v1/webhooks/config', { key: admin() });
    });

    it('a redelivered event (crash before it was marked dispatched, or a failing sibling subscriber) adds nothing', async () => {
      const dealId = await newDeal(admin(), 'Redelivered');
      await assign(admin(), dealId, { user_id: uw2.user.id, role: 'underwriter' });
      await comment(uw1.api_key, dealId, { body: `@${uw2.user.email} see this` });
      const before = { timeline: (await timeline(dealId)).meta.total, notes: (await notifications(uw2.api_key)).meta.total };
      const em = app.get(Database).system();
      const rows = await em.find(DomainEventRecord, { dealId }, { orderBy: { id: 'asc' } });
      expect(rows.length).toBeGreaterThanOrEqual(3);
      const feed = app.get(CollaborationFeed);
      for (const row of rows) expect(await feed.apply(toDomainEvent(row))).toBe(false);
      // The dispatcher hands every event out again, and a sibling subscriber fails the first time.
      let failures = 0;
      app.get(EventDispatcher).subscribe('flaky-test', () => {
        if (failures++ < rows.length) throw new Error('flaky');
      });
      await em.nativeUpdate(DomainEventRecord, { id: { $in: rows.map((r) => r.id) } }, { dispatchedAt: null, nextAttemptAt: new Date(0) });
      await app.drainEvents();
      await em.nativeUpdate(DomainEventRecord, { id: { $in: rows.map((r) => r.id) }, dispatchedAt: null }, { nextAttemptAt: new Date(0) });
      await app.drainEvents();
      app.get(EventDispatcher).subscribe('flaky-test', () => undefined);
      expect(await em.count(DomainEventRecord, { id: { $in: rows.map((r) => r.id) }, dispatchedAt: null })).toBe(0);
      expect(failures).toBeGreaterThan(rows.length);
      expect({ timeline: (await timeline(dealId)).meta.total, notes: (await notifications(uw2.api_key)).meta.total }).toEqual(before);
    });

    it('an event recorded before a restart but not yet delivered is applied after it', async () => {
      const dealId = await newDeal(admin(), 'Restarted');
      await app.drainEvents();
      app = await app.restart({ outboxPollSeconds: 3600 });
      const scope = { organizationId: org.organization.id, livemode: true };
      const em = app.get(Database).forScope(scope);
      // Written the way a service writes it, but with nobody told: the poll is an hour away.
      recordEvent(em, scope, 'deal.assigned', {
        dealId,
        actor: `user:${org.user.id}`,
        data: { deal_id: dealId, assignment_id: 0, user_id: uw1.user.id, role: 'reviewer', previous_role: null },
      });
      await em.flush();
      const count = () => app.get(Database).forScope(scope).count(TimelineEntry, { dealId, eventType: 'deal.assigned' });
      expect(await count()).toBe(0);
      app = await app.restart();
      await app.drainEvents();
      expect(await count()).toBe(1);
      expect((await notifications(uw1.api_key)).data.filter((n) => n.deal_id === dealId).map((n) => n.type)).toEqual(['deal.assigned']);
    });
  });
});
