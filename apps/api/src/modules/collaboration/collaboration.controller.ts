import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiOperation,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { IdParam } from '../../platform/http/id-param';
import { PageQueryDto } from '../../platform/pagination/pagination';
import { AssignmentsService } from './assignments.service';
import { DocumentsService } from '../pipeline/services/documents.service';
import { ReviewQueueDto } from '../pipeline/dto/document.dto';
import { CommentsService } from './comments.service';
import { DocumentRequestsService } from './document-requests.service';
import {
  AssignedDealListDto,
  AssignmentDto,
  AssignmentListDto,
  AssignmentsOfDealsDto,
  AssignmentsOfDealsQueryDto,
  CommentDto,
  CommentListDto,
  CreateAssignmentDto,
  CreateCommentDto,
  CreateDocumentRequestDto,
  DocumentRequestDto,
  DocumentRequestListDto,
  LongPageQueryDto,
  UnassignAckDto,
  UpdateCommentDto,
  UpdateDocumentRequestDto,
} from './dto/collaboration.dto';
import { AckDto } from '../../platform/http/ack.dto';

@ApiTags('Collaboration')
@Controller('v1')
export class AssignmentsController {
  constructor(
    private readonly assignments: AssignmentsService,
    private readonly documents: DocumentsService,
  ) {}

  @Post('deals/:deal_id/assignments')
  @Authenticated('deals:write')
  @ApiCreatedResponse({ type: AssignmentDto, description: 'The user was assigned' })
  @ApiOkResponse({ type: AssignmentDto, description: "The user's existing assignment, with the role replaced" })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'No such deal, or no such user in the organization' })
  @ApiOperation({
    summary: 'Assign a user to a deal',
    description:
      "One role per user per deal: 201 for a new assignment, 200 when the user's role was replaced. Only users of the organization (404 otherwise). The assignee is notified (`deal.assigned`).",
  })
  async createAssignment(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Body() dto: CreateAssignmentDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AssignmentDto> {
    const { created, assignment } = await this.assignments.assign(auth, dealId, dto);
    void reply.status(created ? 201 : 200);
    return assignment;
  }

  @Get('deals/:deal_id/assignments')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: AssignmentListDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'List the users assigned to a deal', description: 'With their role, email and name, oldest assignment first.' })
  listAssignments(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Query() query: LongPageQueryDto,
  ): Promise<AssignmentListDto> {
    return this.assignments.list(auth, dealId, query);
  }

  @Delete('deals/:deal_id/assignments/:user_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: UnassignAckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'Remove a user from a deal (by user id)', description: 'The user stops receiving the deal’s notifications.' })
  deleteDealAssignment(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @IdParam('user_id') userId: number,
  ): Promise<UnassignAckDto> {
    return this.assignments.unassignUser(auth, dealId, userId);
  }

  @Delete('assignments/:assignment_id')
  @HttpCode(204)
  @Authenticated('deals:write')
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({
    summary: 'Remove an assignment (by assignment id)',
    description: '204 on success. The user stops receiving the deal’s notifications.',
  })
  async deleteAssignment(@Auth() auth: AuthContext, @IdParam('assignment_id') id: number): Promise<void> {
    await this.assignments.unassign(auth, id);
  }

  @Get('assignments')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: AssignmentsOfDealsDto })
  @ApiOperation({
    summary: 'The assignments of several deals',
    description:
      'For a list page: the users assigned to each of `deal_ids` (at most 100) in one request; a deal the caller cannot see has none.',
  })
  async listAssignmentsOfDeals(@Auth() auth: AuthContext, @Query() query: AssignmentsOfDealsQueryDto): Promise<AssignmentsOfDealsDto> {
    return { data: await this.assignments.ofDeals(auth, query.deal_ids ?? []) };
  }

  @Get('me/assigned-deals')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: AssignedDealListDto })
  @ApiOperation({ summary: 'Deals assigned to me', description: 'The calling user’s deals with their role, most recent assignment first.' })
  listMyAssignedDeals(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<AssignedDealListDto> {
    return this.assignments.assignedDeals(auth, query);
  }

  @Get('review-queue')
  @Authenticated('documents:read')
  @ApiOkResponse({ type: ReviewQueueDto })
  @ApiOperation({
    summary: 'Documents needing review',
    description:
      'Every read document of the organization (in the caller’s mode) flagged `needs_review`, with its reasons: those of deals assigned to the caller first, then the oldest reading first.',
  })
  async listReviewQueue(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<ReviewQueueDto> {
    return this.documents.reviewQueue(auth, await this.assignments.assignedDealIds(auth), query);
  }
}

@ApiTags('Collaboration')
@Controller('v1')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get('deals/:deal_id/comments')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: CommentListDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({
    summary: 'List a deal’s comments',
    description: 'Top-level comments, oldest first, each with its replies; deleted comments are hidden.',
  })
  listComments(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number, @Query() query: PageQueryDto): Promise<CommentListDto> {
    return this.comments.list(auth, dealId, query);
  }

  @Post('deals/:deal_id/comments')
  @Authenticated('deals:write')
  @ApiCreatedResponse({ type: CommentDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto, description: 'Blank text, unknown parent, or a reply to a reply' })
  @ApiOperation({
    summary: 'Comment on a deal',
    description:
      '`body` or `content`; `parent_id` to reply to a top-level comment (one level deep). `@email` or `@handle` mentions notify those users.',
  })
  createComment(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number, @Body() dto: CreateCommentDto): Promise<CommentDto> {
    return this.comments.create(auth, dealId, dto);
  }

  @Patch('deals/:deal_id/comments/:comment_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: CommentDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'Edit a comment', description: 'The author only (403 otherwise); `updated_at` is set to now.' })
  updateDealComment(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @IdParam('comment_id') id: number,
    @Body() dto: UpdateCommentDto,
  ): Promise<CommentDto> {
    return this.comments.update(auth, id, dto, { dealId, adminMayDelete: false });
  }

  @Patch('comments/:comment_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: CommentDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'Edit a comment (by id)', description: 'The author only (403 otherwise).' })
  updateComment(@Auth() auth: AuthContext, @IdParam('comment_id') id: number, @Body() dto: UpdateCommentDto): Promise<CommentDto> {
    return this.comments.update(auth, id, dto, { adminMayDelete: true });
  }

  @Delete('deals/:deal_id/comments/:comment_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: AckDto, description: 'Soft-deleted (author only)' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'Delete a comment', description: 'Soft delete by the author only: hidden from lists, kept for audit.' })
  async deleteDealComment(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @IdParam('comment_id') id: number,
  ): Promise<AckDto> {
    await this.comments.remove(auth, id, { dealId, adminMayDelete: false });
    return { status: 'ok', success: true, message: `Comment ${id} deleted`, id, deal_id: dealId };
  }

  @Delete('comments/:comment_id')
  @HttpCode(204)
  @Authenticated('deals:write')
  @ApiNoContentResponse({ description: 'Soft-deleted (author or admin)' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'Delete a comment (by id)', description: 'Soft delete by the author or an admin; 204.' })
  async deleteComment(@Auth() auth: AuthContext, @IdParam('comment_id') id: number): Promise<void> {
    await this.comments.remove(auth, id, { adminMayDelete: true });
  }
}

@ApiTags('Collaboration')
@Controller('v1')
export class DocumentRequestsController {
  constructor(private readonly requests: DocumentRequestsService) {}

  @Post('deals/:deal_id/doc-requests')
  @Authenticated('deals:write')
  @ApiCreatedResponse({ type: DocumentRequestDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({
    summary: 'Request a document from the merchant',
    description: 'Pending until a document of that type is uploaded to the deal (then fulfilled automatically) or its status is set.',
  })
  createDocumentRequest(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Body() dto: CreateDocumentRequestDto,
  ): Promise<DocumentRequestDto> {
    return this.requests.create(auth, dealId, dto);
  }

  @Get('deals/:deal_id/doc-requests')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: DocumentRequestListDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({ summary: 'List a deal’s document requests', description: 'Oldest first, with status, due date and fulfilment.' })
  listDocumentRequests(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Query() query: LongPageQueryDto,
  ): Promise<DocumentRequestListDto> {
    return this.requests.list(auth, dealId, query);
  }

  @Patch('doc-requests/:request_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: DocumentRequestDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({
    summary: 'Set a document request’s status',
    description: '`pending`, `fulfilled` or `cancelled`; `fulfilled_at` follows.',
  })
  updateDocumentRequest(
    @Auth() auth: AuthContext,
    @IdParam('request_id') id: number,
    @Body() dto: UpdateDocumentRequestDto,
  ): Promise<DocumentRequestDto> {
    return this.requests.update(auth, id, dto);
  }
}
