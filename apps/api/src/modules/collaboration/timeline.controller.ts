import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { IdParam } from '../../platform/http/id-param';
import { PageQueryDto } from '../../platform/pagination/pagination';
import {
  ActivityListDto,
  MarkReadDto,
  MarkReadResultDto,
  NotificationListDto,
  NotificationQueryDto,
  OrgActivityListDto,
  TimelineListDto,
  TimelineQueryDto,
} from './dto/collaboration.dto';
import { TimelineService } from './timeline.service';

@ApiTags('Collaboration')
@Controller('v1')
export class TimelineController {
  constructor(private readonly timeline: TimelineService) {}

  @Get('deals/:deal_id/timeline')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: TimelineListDto, description: 'Newest first (order=asc: the chronological stream); 50 per page by default' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({
    summary: 'A deal’s timeline',
    description:
      'Uploads, processing results, assignments, comments, decisions and status changes, newest first (`order=asc` for the chronological stream).',
  })
  getDealTimeline(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Query() query: TimelineQueryDto,
  ): Promise<TimelineListDto> {
    return this.timeline.timeline(auth, dealId, query);
  }

  @Get('deals/:deal_id/activity')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: ActivityListDto, description: 'Audit records, newest first; 50 per page by default' })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiOperation({
    summary: 'A deal’s activity (audit records)',
    description: 'The timeline as audit records: action, actor id and name, metadata.',
  })
  getDealActivity(@Auth() auth: AuthContext, @IdParam('deal_id') dealId: number, @Query() query: PageQueryDto): Promise<ActivityListDto> {
    return this.timeline.activity(auth, dealId, query);
  }

  @Get('activity')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: OrgActivityListDto, description: "The organization's timeline entries, newest first, with business_name" })
  @ApiOperation({
    summary: 'The organization’s activity feed',
    description: 'Every deal’s timeline lines, newest first, with the business name.',
  })
  getActivity(@Auth() auth: AuthContext, @Query() query: PageQueryDto): Promise<OrgActivityListDto> {
    return this.timeline.orgActivity(auth, query);
  }

  @Get('notifications')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: NotificationListDto, description: "The caller's notifications, newest first" })
  @ApiOperation({
    summary: 'My notifications',
    description: 'Assignments, mentions and status changes of my deals, newest first; `unread_only=true` for the unread ones.',
  })
  listNotifications(@Auth() auth: AuthContext, @Query() query: NotificationQueryDto): Promise<NotificationListDto> {
    return this.timeline.notifications(auth, query);
  }

  @Post('notifications/mark-read')
  @HttpCode(200)
  @Authenticated('deals:read')
  @ApiOkResponse({ type: MarkReadResultDto })
  @ApiOperation({
    summary: 'Mark notifications read',
    description: 'Marks the caller’s own unread notifications among the ids; answers how many changed.',
  })
  markNotificationsRead(@Auth() auth: AuthContext, @Body() dto: MarkReadDto): Promise<MarkReadResultDto> {
    return this.timeline.markRead(auth, dto.notification_ids);
  }
}
