import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, Max, Min } from 'class-validator';
import { PageMetaDto, PageQueryDto } from '../../../platform/pagination/pagination';
import { IntListQuery, ValidateBoolean, ValidateEnum, ValidateInt, ValidateString } from '../../../platform/validation/decorators';
import { ASSIGNMENT_ROLES, DOCUMENT_REQUEST_STATUSES, REQUESTABLE_DOCUMENT_TYPES } from '../collaboration.entities';

export const MAX_COMMENT_LENGTH = 10_000;
export const MAX_REQUEST_MESSAGE_LENGTH = 2000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * `pnl_statement` is accepted as an alias of `profit_and_loss` (README, "How the spec's variants
 * became one API", rule 2: requests accept every form's names).
 */
export const REQUEST_TYPE_INPUTS = [...REQUESTABLE_DOCUMENT_TYPES, 'pnl_statement'] as const;

/** Lists that the spec shows without paging: the whole list fits one page by default. */
export class LongPageQueryDto {
  @ValidateInt({ optional: true, query: true, min: 1, description: 'Page number, from 1' })
  page?: number;

  @ValidateInt({ optional: true, query: true, min: 1, max: 100, description: 'Items per page (default 100, max 100)' })
  per_page?: number;
}

/** Timelines and activity: 50 per page by default (spec). */
export class TimelineQueryDto {
  @ValidateInt({ optional: true, query: true, min: 1, description: 'Page number, from 1' })
  page?: number;

  @ValidateInt({ optional: true, query: true, min: 1, max: 100, description: 'Items per page (default 50, max 100)' })
  per_page?: number;

  @ValidateEnum(['desc', 'asc'] as const, {
    optional: true,
    description: 'desc (default, Form A: newest first) or asc (the chronological stream of Form B)',
  })
  order?: 'asc' | 'desc';
}

// ---- assignments

export class CreateAssignmentDto {
  @ValidateInt({ min: 1, description: 'A user of the same organization' }) user_id: number;
  @ValidateEnum(ASSIGNMENT_ROLES, {
    optional: true,
    description: 'Default reviewer. Form A: reviewer, underwriter, admin; Form B adds manager',
  })
  role?: (typeof ASSIGNMENT_ROLES)[number];
}

export class AssignmentDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: 'integer' }) user_id: number;
  @ApiProperty() user_email: string;
  @ApiProperty({ type: String, nullable: true }) user_name: string | null;
  @ApiProperty({ enum: ASSIGNMENT_ROLES }) role: string;
  @ApiProperty({ type: String, format: 'date-time' }) assigned_at: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The assigning user (null when an API key without a user assigned)' })
  assigned_by: number | null;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class AssignmentListDto {
  @ApiProperty({ type: [AssignmentDto] }) data: AssignmentDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

/** `GET /v1/assignments?deal_ids=...`: the assignments of several deals in one request (a list page). */
export class AssignmentsOfDealsQueryDto {
  @IntListQuery('deal_ids', 100, 'The deals (at most 100): repeat the parameter or separate with commas')
  deal_ids?: number[];
}

export class AssignmentsOfDealsDto {
  @ApiProperty({
    type: [AssignmentDto],
    description:
      'Every assignment of the deals asked for that the caller can see, by deal then oldest first; a deal it cannot see has none',
  })
  data: AssignmentDto[];
}

export class AssignedDealDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer', description: 'Same as id' }) deal_id: number;
  @ApiProperty() business_name: string;
  @ApiProperty() status: string;
  @ApiProperty({ type: Number, nullable: true }) health_score: number | null;
  @ApiProperty({ type: String, nullable: true }) health_grade: string | null;
  @ApiProperty({ enum: ASSIGNMENT_ROLES }) role: string;
  @ApiProperty({ type: String, format: 'date-time' }) assigned_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class AssignedDealListDto {
  @ApiProperty({ type: [AssignedDealDto] }) data: AssignedDealDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class UnassignAckDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer', description: 'The removed assignment' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: 'integer' }) user_id: number;
}

// ---- comments

export class CreateCommentDto {
  @ValidateString({
    optional: true,
    maxLength: MAX_COMMENT_LENGTH,
    description: 'Form A text; `content` (Form B) is the same. One of them is required',
  })
  body?: string;
  @ValidateString({ optional: true, maxLength: MAX_COMMENT_LENGTH, description: 'Form B name of `body`' })
  content?: string;
  @ValidateInt({
    optional: true,
    nullable: true,
    min: 1,
    description: 'Reply to this top-level comment of the same deal (one level deep: a reply to a reply is 422)',
  })
  parent_id?: number | null;
}

export class UpdateCommentDto {
  @ValidateString({ optional: true, maxLength: MAX_COMMENT_LENGTH, description: 'New text; `content` is accepted too. One is required' })
  body?: string;
  @ValidateString({ optional: true, maxLength: MAX_COMMENT_LENGTH }) content?: string;
}

export class CommentReplyDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ type: 'integer' }) user_id: number;
  @ApiProperty({ type: String, nullable: true }) user_name: string | null;
  @ApiProperty({ description: 'Form A name of content' }) body: string;
  @ApiProperty() content: string;
  @ApiProperty({ type: 'integer', nullable: true }) parent_id: number | null;
  @ApiProperty({ type: 'array', items: { type: 'integer' }, description: 'Users of the organization the text mentions (notified)' })
  mentioned_user_ids: number[];
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deleted_at: string | null;
}

export class CommentDto extends CommentReplyDto {
  @ApiPropertyOptional({ type: [CommentReplyDto], description: 'On top-level comments only: their live replies, oldest first' })
  replies?: CommentReplyDto[];
}

export class CommentListDto {
  @ApiProperty({ type: [CommentDto], description: 'Top-level comments, oldest first, each with its replies' }) data: CommentDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

// ---- document requests

export class CreateDocumentRequestDto {
  @ValidateEnum(REQUEST_TYPE_INPUTS, { description: '`pnl_statement` is an alias of `profit_and_loss`' })
  document_type: (typeof REQUEST_TYPE_INPUTS)[number];
  @ValidateString({ optional: true, nullable: true, maxLength: MAX_REQUEST_MESSAGE_LENGTH, description: 'Form A' })
  message?: string | null;
  @ValidateString({ optional: true, nullable: true, maxLength: MAX_REQUEST_MESSAGE_LENGTH, description: 'Form B name of message' })
  description?: string | null;
  @ValidateString({ optional: true, nullable: true, pattern: DATE, patternMessage: '$property must be a date YYYY-MM-DD' })
  due_date?: string | null;
}

export class UpdateDocumentRequestDto {
  @ValidateEnum(DOCUMENT_REQUEST_STATUSES) status: (typeof DOCUMENT_REQUEST_STATUSES)[number];
}

export class DocumentRequestDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ enum: REQUESTABLE_DOCUMENT_TYPES }) document_type: string;
  @ApiProperty({ type: String, nullable: true }) message: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Same as message' }) description: string | null;
  @ApiProperty({ enum: DOCUMENT_REQUEST_STATUSES }) status: string;
  @ApiProperty({ type: String, format: 'date', nullable: true }) due_date: string | null;
  @ApiProperty({ description: 'Pending with a due date before today (UTC)' }) overdue: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The requesting user' }) requested_by: number | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The upload that fulfilled the request' }) fulfilled_document_id:
    number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) fulfilled_at: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at: string;
}

export class DocumentRequestListDto {
  @ApiProperty({ type: [DocumentRequestDto] }) data: DocumentRequestDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

// ---- timeline, activity

export class TimelineEntryDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty({ description: 'Form A: deal.created, document.uploaded, document.completed, document.failed, deal.assigned, ...' })
  event_type: string;
  @ApiProperty({
    description: 'Form B: status_change, document_uploaded, document_processed, document_reviewed, comment, assignment, document_request',
  })
  type: string;
  @ApiProperty({ description: 'Who caused it: a user name or email, an API key, or system' }) actor: string;
  @ApiProperty({ type: 'integer', nullable: true }) actor_id: number | null;
  @ApiProperty() description: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Form B name of metadata' }) details: Record<string, unknown>;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'Form B name of created_at' }) timestamp: string;
}

export class TimelineListDto {
  @ApiProperty({ type: [TimelineEntryDto] }) data: TimelineEntryDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class OrgActivityEntryDto extends TimelineEntryDto {
  @ApiProperty() business_name: string;
}

export class OrgActivityListDto {
  @ApiProperty({ type: [OrgActivityEntryDto] }) data: OrgActivityEntryDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class ActivityRecordDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) deal_id: number;
  @ApiProperty() action: string;
  @ApiProperty({ type: 'integer', nullable: true }) actor_id: number | null;
  @ApiProperty() actor_name: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata: Record<string, unknown>;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class ActivityListDto {
  @ApiProperty({ type: [ActivityRecordDto] }) data: ActivityRecordDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

// ---- notifications

export class NotificationQueryDto extends PageQueryDto {
  @ValidateBoolean({ optional: true, query: true, description: 'Only unread notifications (default false)' })
  unread_only?: boolean;
}

export class NotificationDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ description: 'deal.assigned, comment.mention or deal.status_changed' }) type: string;
  @ApiProperty() title: string;
  @ApiProperty() message: string;
  @ApiProperty({ type: 'integer', nullable: true }) deal_id: number | null;
  @ApiProperty() read: boolean;
  @ApiProperty({ type: String, format: 'date-time' }) created_at: string;
}

export class NotificationListDto {
  @ApiProperty({ type: [NotificationDto] }) data: NotificationDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class MarkReadDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'integer' },
    description: "The caller's notifications to mark read (others' ids are ignored); 1-1000 ids",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(2147483647, { each: true })
  notification_ids: number[];
}

export class MarkedCountDto {
  @ApiProperty({ type: 'integer', description: 'How many unread notifications became read' }) marked: number;
}

export class MarkReadResultDto {
  @ApiProperty({ type: MarkedCountDto }) data: MarkedCountDto;
}
