import type { User } from '../auth/auth.entities';
import { Assignment, Comment, DocumentRequest, Notification, TimelineEntry } from './collaboration.entities';
import {
  ActivityRecordDto,
  AssignmentDto,
  CommentDto,
  CommentReplyDto,
  DocumentRequestDto,
  NotificationDto,
  TimelineEntryDto,
} from './dto/collaboration.dto';

type UserLike = Pick<User, 'id' | 'email' | 'name'>;

export function mapAssignment(a: Assignment, user: UserLike | undefined): AssignmentDto {
  return {
    id: a.id,
    deal_id: a.dealId,
    user_id: a.userId,
    user_email: user?.email ?? '',
    user_name: user?.name ?? null,
    role: a.role,
    assigned_at: a.assignedAt.toISOString(),
    assigned_by: a.assignedBy,
    updated_at: a.updatedAt.toISOString(),
  };
}

export function mapComment(c: Comment, users: Map<number, UserLike>, replies?: CommentReplyDto[]): CommentDto {
  const author = users.get(c.userId);
  const dto: CommentDto = {
    id: c.id,
    deal_id: c.dealId,
    user_id: c.userId,
    user_name: author?.name ?? author?.email ?? null,
    body: c.body,
    content: c.body,
    parent_id: c.parentId,
    mentioned_user_ids: c.mentions,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    deleted_at: c.deletedAt?.toISOString() ?? null,
  };
  if (c.parentId === null) dto.replies = replies ?? [];
  return dto;
}

export function mapDocumentRequest(r: DocumentRequest, today: string): DocumentRequestDto {
  return {
    id: r.id,
    deal_id: r.dealId,
    document_type: r.documentType,
    message: r.message,
    description: r.message,
    status: r.status,
    due_date: r.dueDate,
    overdue: r.status === 'pending' && r.dueDate !== null && r.dueDate < today,
    requested_by: r.requestedBy,
    fulfilled_document_id: r.fulfilledDocumentId,
    fulfilled_at: r.fulfilledAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function mapTimelineEntry(e: TimelineEntry): TimelineEntryDto {
  const at = e.createdAt.toISOString();
  return {
    id: e.id,
    deal_id: e.dealId,
    event_type: e.eventType,
    type: e.kind,
    actor: e.actorName,
    actor_id: e.actorId,
    description: e.description,
    metadata: e.metadata,
    details: e.metadata,
    created_at: at,
    timestamp: at,
  };
}

export function mapActivity(e: TimelineEntry): ActivityRecordDto {
  return {
    id: e.id,
    deal_id: e.dealId,
    action: e.eventType,
    actor_id: e.actorId,
    actor_name: e.actorName,
    metadata: e.metadata,
    created_at: e.createdAt.toISOString(),
  };
}

export function mapNotification(n: Notification): NotificationDto {
  return {
    id: n.id,
    type: n.type,
    title: n.title,
    message: n.message,
    deal_id: n.dealId,
    read: n.read,
    created_at: n.createdAt.toISOString(),
  };
}
