import type { LedgerlensCore } from '../core.js';
import type { Ack, CommonRequestOptions, components } from '../types.js';
import { unwrap } from '../unwrap.js';

type S = components['schemas'];
type PageQuery = { page?: number; per_page?: number };
const deal = (dealId: number) => ({ path: { deal_id: dealId } });

/** `client.assignments`: who works on a deal, in which role (one role per user and deal). */
export class AssignmentsResource {
  constructor(private readonly client: LedgerlensCore) {}

  async list(dealId: number, query: PageQuery = {}, options?: CommonRequestOptions): Promise<S['AssignmentListDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/assignments', { ...options, params: { ...deal(dealId), query } })).data;
  }

  /** The assignments of several deals (at most 100) in one request, by deal then oldest first: for a list page. */
  async listForDeals(dealIds: number[], options?: CommonRequestOptions): Promise<S['AssignmentDto'][]> {
    if (!dealIds.length) return [];
    return (await this.client.GET('/v1/assignments', { ...options, params: { query: { deal_ids: dealIds } } })).data.data;
  }

  /** Assigns a user of the organization (role `reviewer` unless given); assigning again replaces the role. */
  async assign(dealId: number, body: S['CreateAssignmentDto'], options?: CommonRequestOptions): Promise<S['AssignmentDto']> {
    return (await this.client.POST('/v1/deals/{deal_id}/assignments', { ...options, params: deal(dealId), body })).data;
  }

  /** Removes a user from the deal (Form A path, by user id). */
  async unassignUser(dealId: number, userId: number, options?: CommonRequestOptions): Promise<S['UnassignAckDto']> {
    return (
      await this.client.DELETE('/v1/deals/{deal_id}/assignments/{user_id}', {
        ...options,
        params: { path: { deal_id: dealId, user_id: userId } },
      })
    ).data;
  }

  /** Deletes an assignment by its id (Form B path, 204). */
  async delete(assignmentId: number, options?: CommonRequestOptions): Promise<void> {
    await this.client.DELETE('/v1/assignments/{assignment_id}', { ...options, params: { path: { assignment_id: assignmentId } } });
  }

  /** The deals assigned to the caller. */
  async mine(query: PageQuery = {}, options?: CommonRequestOptions): Promise<S['AssignedDealListDto']> {
    return (await this.client.GET('/v1/me/assigned-deals', { ...options, params: { query } })).data;
  }
}

/** `client.comments`: a deal's discussion, one level of replies, @mentions notify the people named. */
export class CommentsResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** Top-level comments with their replies nested, oldest first. */
  async list(dealId: number, query: PageQuery = {}, options?: CommonRequestOptions): Promise<S['CommentListDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/comments', { ...options, params: { ...deal(dealId), query } })).data;
  }

  /** `body` (or `content`); `parent_id` to reply to a top-level comment. */
  async create(dealId: number, body: S['CreateCommentDto'], options?: CommonRequestOptions): Promise<S['CommentDto']> {
    return (await this.client.POST('/v1/deals/{deal_id}/comments', { ...options, params: deal(dealId), body })).data;
  }

  /** Edits a comment (its author only). */
  async update(commentId: number, body: S['UpdateCommentDto'], options?: CommonRequestOptions): Promise<S['CommentDto']> {
    return (await this.client.PATCH('/v1/comments/{comment_id}', { ...options, params: { path: { comment_id: commentId } }, body })).data;
  }

  /** Hides a comment from lists (kept for audit): its author, or an admin. */
  async delete(commentId: number, options?: CommonRequestOptions): Promise<void> {
    await this.client.DELETE('/v1/comments/{comment_id}', { ...options, params: { path: { comment_id: commentId } } });
  }

  /** Form A paths under the deal. */
  async updateOnDeal(
    dealId: number,
    commentId: number,
    body: S['UpdateCommentDto'],
    options?: CommonRequestOptions,
  ): Promise<S['CommentDto']> {
    return (
      await this.client.PATCH('/v1/deals/{deal_id}/comments/{comment_id}', {
        ...options,
        params: { path: { deal_id: dealId, comment_id: commentId } },
        body,
      })
    ).data;
  }

  async deleteOnDeal(dealId: number, commentId: number, options?: CommonRequestOptions): Promise<Ack> {
    return (
      await this.client.DELETE('/v1/deals/{deal_id}/comments/{comment_id}', {
        ...options,
        params: { path: { deal_id: dealId, comment_id: commentId } },
      })
    ).data;
  }
}

/** `client.documentRequests`: documents asked of the merchant; fulfilled when one of that type is uploaded. */
export class DocumentRequestsResource {
  constructor(private readonly client: LedgerlensCore) {}

  async list(dealId: number, query: PageQuery = {}, options?: CommonRequestOptions): Promise<S['DocumentRequestListDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/doc-requests', { ...options, params: { ...deal(dealId), query } })).data;
  }

  async create(dealId: number, body: S['CreateDocumentRequestDto'], options?: CommonRequestOptions): Promise<S['DocumentRequestDto']> {
    return (await this.client.POST('/v1/deals/{deal_id}/doc-requests', { ...options, params: deal(dealId), body })).data;
  }

  /** Sets the status (`pending`, `fulfilled`, `cancelled`). */
  async update(requestId: number, body: S['UpdateDocumentRequestDto'], options?: CommonRequestOptions): Promise<S['DocumentRequestDto']> {
    return (await this.client.PATCH('/v1/doc-requests/{request_id}', { ...options, params: { path: { request_id: requestId } }, body }))
      .data;
  }
}

/** `client.activity`: what happened on a deal and across the organization. */
export class ActivityResource {
  constructor(private readonly client: LedgerlensCore) {}

  /** A deal's timeline (Form A: newest first, paginated). */
  async timeline(
    dealId: number,
    query: PageQuery & { order?: 'asc' | 'desc' } = {},
    options?: CommonRequestOptions,
  ): Promise<S['TimelineListDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/timeline', { ...options, params: { ...deal(dealId), query } })).data;
  }

  /** A deal's activity records (Form B). */
  async forDeal(dealId: number, query: PageQuery = {}, options?: CommonRequestOptions): Promise<S['ActivityListDto']> {
    return (await this.client.GET('/v1/deals/{deal_id}/activity', { ...options, params: { ...deal(dealId), query } })).data;
  }

  /** The organization-wide feed, with each deal's business name. */
  async feed(query: PageQuery = {}, options?: CommonRequestOptions): Promise<S['OrgActivityListDto']> {
    return (await this.client.GET('/v1/activity', { ...options, params: { query } })).data;
  }
}

/** `client.notifications`: the caller's notifications (assignments, mentions, status changes). */
export class NotificationsResource {
  constructor(private readonly client: LedgerlensCore) {}

  async list(query: PageQuery & { unread_only?: boolean } = {}, options?: CommonRequestOptions): Promise<S['NotificationListDto']> {
    return (await this.client.GET('/v1/notifications', { ...options, params: { query } })).data;
  }

  async markRead(notificationIds: number[], options?: CommonRequestOptions): Promise<S['MarkReadResultDto']['data']> {
    return unwrap(
      (await this.client.POST('/v1/notifications/mark-read', { ...options, body: { notification_ids: notificationIds } })).data,
    );
  }
}
