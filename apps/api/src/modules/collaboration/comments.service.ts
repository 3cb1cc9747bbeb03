import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { ApiError, validationEntry } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { Page, PageQueryDto, paginate, pageWindow } from '../../platform/pagination/pagination';
import { excerptOf } from '../../platform/text/truncate';
import { User } from '../auth/auth.entities';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import { Comment } from './collaboration.entities';
import { mapComment } from './collaboration.mapper';
import { CommentDto, CreateCommentDto, UpdateCommentDto } from './dto/collaboration.dto';
import { resolveMentions } from './mentions';
import { requireUser, usersById } from './users';

const EXCERPT = 200;

/** Which path a comment is reached by: Form A under its deal (author only deletes), Form B by id (author or admin deletes). */
export interface CommentPath {
  dealId?: number;
  adminMayDelete: boolean;
}

function textOf(dto: { body?: string; content?: string }): string {
  const text = dto.body ?? dto.content;
  if (text === undefined || text.trim() === '') {
    throw ApiError.validation([
      validationEntry('body', ['body'], 'body (or content) is required and must not be blank', 'value_error.missing'),
    ]);
  }
  return text;
}

/** Cut between grapheme clusters: a cut inside a surrogate pair is invalid in the event's json. */
const excerpt = (text: string) => excerptOf(text, EXCERPT);

/**
 * Deal comments with one level of replies. Soft delete: the row stays (audit) and lists hide it.
 * `@mentions` are resolved against the organization's users when the text is written; the
 * mentioned users are notified by the feed from `comment.added` / `comment.updated`.
 */
@Injectable()
export class CommentsService {
  constructor(
    private readonly deals: DealsService,
    private readonly db: Database,
    private readonly events: EventDispatcher,
  ) {}

  async create(auth: AuthContext, dealId: number, dto: CreateCommentDto): Promise<CommentDto> {
    const userId = requireUser(auth);
    const text = textOf(dto);
    const em = this.db.forScope(auth);
    const comment = await em.transactional(async (tx) => {
      await this.deals.findOr404(UnitOfWork.of(tx), dealId);
      const parentId = dto.parent_id ?? null;
      if (parentId !== null) await this.checkParent(tx, dealId, parentId);
      const now = new Date();
      const created = tx.create(Comment, {
        ...scopeFields(auth),
        dealId,
        userId,
        parentId,
        body: text,
        mentions: await this.mentions(tx, auth.organizationId, text),
        createdAt: now,
        updatedAt: now,
      });
      await tx.flush();
      recordEvent(tx, auth, 'comment.added', {
        dealId,
        actor: auth.actor,
        data: {
          deal_id: dealId,
          comment_id: created.id,
          parent_id: parentId,
          user_id: userId,
          mentioned_user_ids: created.mentions,
          excerpt: excerpt(text),
        },
      });
      return created;
    });
    this.events.notify();
    return mapComment(comment, await usersById(em, auth.organizationId, [userId]));
  }

  private async checkParent(tx: EntityManager, dealId: number, parentId: number): Promise<void> {
    const parent = await tx.findOne(Comment, { id: parentId, dealId, deletedAt: null });
    if (!parent) {
      throw ApiError.validation([
        validationEntry('body', ['parent_id'], 'parent_id is not a comment of this deal', 'value_error.not_found'),
      ]);
    }
    if (parent.parentId !== null) {
      throw ApiError.validation([
        validationEntry('body', ['parent_id'], 'Replies are one level deep: parent_id must be a top-level comment', 'value_error.nesting'),
      ]);
    }
  }

  private async mentions(tx: EntityManager, organizationId: number, text: string): Promise<number[]> {
    if (!text.includes('@')) return [];
    const users = await tx.find(User, { organizationId }, { fields: ['id', 'email'] });
    return resolveMentions(text, users);
  }

  /** Top-level comments, oldest first, each with its live replies; deleted comments (and the replies under them) are hidden. */
  async list(auth: AuthContext, dealId: number, query: PageQueryDto): Promise<Page<CommentDto>> {
    const em = this.db.forScope(auth);
    await this.deals.findOr404(UnitOfWork.of(em), dealId);
    const where = { dealId, parentId: null, deletedAt: null };
    return paginate(
      pageWindow(query),
      () => em.count(Comment, where),
      async (offset, limit) => {
        const top = await em.find(Comment, where, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], offset, limit });
        const replies = await em.find(
          Comment,
          { dealId, parentId: { $in: top.map((c) => c.id) }, deletedAt: null },
          { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
        );
        const users = await usersById(
          em,
          auth.organizationId,
          [...top, ...replies].map((c) => c.userId),
        );
        return top.map((c) =>
          mapComment(
            c,
            users,
            replies.filter((r) => r.parentId === c.id).map((r) => mapComment(r, users)),
          ),
        );
      },
    );
  }

  /** Author only (403 for anyone else). Users newly mentioned by the edit are notified. */
  async update(auth: AuthContext, commentId: number, dto: UpdateCommentDto, path: CommentPath): Promise<CommentDto> {
    const userId = requireUser(auth);
    const text = textOf(dto);
    const em = this.db.forScope(auth);
    const comment = await em.transactional(async (tx) => {
      const found = await this.find(tx, commentId, path);
      if (found.userId !== userId) throw ApiError.forbidden("Only the comment's author can edit it");
      const mentions = await this.mentions(tx, auth.organizationId, text);
      const added = mentions.filter((id) => !found.mentions.includes(id));
      Object.assign(found, { body: text, mentions, updatedAt: new Date() });
      recordEvent(tx, auth, 'comment.updated', {
        dealId: found.dealId,
        actor: auth.actor,
        data: { deal_id: found.dealId, comment_id: found.id, user_id: userId, new_mentioned_user_ids: added, excerpt: excerpt(text) },
      });
      return found;
    });
    this.events.notify();
    const users = await usersById(em, auth.organizationId, [comment.userId]);
    if (comment.parentId !== null) return mapComment(comment, users);
    const replies = await em.find(Comment, { parentId: comment.id, deletedAt: null }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const replyUsers = await usersById(
      em,
      auth.organizationId,
      replies.map((r) => r.userId),
    );
    return mapComment(
      comment,
      users,
      replies.map((r) => mapComment(r, new Map([...users, ...replyUsers]))),
    );
  }

  /** Soft delete: the author, or on the Form B path an admin too. */
  async remove(auth: AuthContext, commentId: number, path: CommentPath): Promise<Comment> {
    const userId = requireUser(auth);
    const comment = await this.db.forScope(auth).transactional(async (tx) => {
      const found = await this.find(tx, commentId, path);
      const isAdmin = path.adminMayDelete && auth.role === 'admin';
      if (found.userId !== userId && !isAdmin) {
        throw ApiError.forbidden(
          path.adminMayDelete ? "Only the comment's author or an admin can delete it" : "Only the comment's author can delete it",
        );
      }
      Object.assign(found, { deletedAt: new Date(), deletedBy: userId });
      recordEvent(tx, auth, 'comment.deleted', {
        dealId: found.dealId,
        actor: auth.actor,
        data: { deal_id: found.dealId, comment_id: found.id, user_id: found.userId, deleted_by: userId },
      });
      return found;
    });
    this.events.notify();
    return comment;
  }

  private async find(tx: EntityManager, commentId: number, path: CommentPath): Promise<Comment> {
    if (path.dealId !== undefined) await this.deals.findOr404(UnitOfWork.of(tx), path.dealId);
    const comment = await tx.findOne(Comment, {
      id: commentId,
      deletedAt: null,
      ...(path.dealId !== undefined ? { dealId: path.dealId } : {}),
    });
    if (!comment) throw ApiError.notFound('Comment');
    return comment;
  }
}
