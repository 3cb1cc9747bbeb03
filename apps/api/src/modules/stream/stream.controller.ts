import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../platform/errors/error.dto';
import { IdParam } from '../../platform/http/id-param';
import { ValidateString } from '../../platform/validation/decorators';
import { StreamService } from './stream.service';

export class StreamQueryDto {
  @ValidateString({
    optional: true,
    maxLength: 512,
    description: 'API key or session token (EventSource cannot send headers); appears in server logs: prefer a header where possible',
  })
  token?: string;

  @ValidateString({ optional: true, maxLength: 20, description: 'Resume after this event id (same as the Last-Event-ID header)' })
  last_event_id?: string;
}

const STREAM_DOC = {
  description:
    'Server-sent events: `id:` (resume with Last-Event-ID), `event:` (deal.created, deal.updated, deal.ready, deal.decision, document.uploaded, ' +
    'document.processed, batch.completed, recommendation.generated, export.ready), `data:` JSON: the event in the envelope of a webhook delivery ' +
    '(`LedgerlensEvent`: id, type, event, created_at, timestamp, deal_id, data), with the fields of its data (deal_id, document_id, ...) and event_id also at the top. ' +
    'A `: ping` comment is sent every SSE_HEARTBEAT_SECONDS.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

@ApiTags('Event stream')
@Controller('v1/events')
export class StreamController {
  constructor(private readonly stream: StreamService) {}

  @Get('stream')
  @Authenticated('deals:read')
  @ApiOperation({ summary: "Live events of the caller's organization and mode" })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Replay the events after this id, then continue live' })
  @ApiOkResponse(STREAM_DOC)
  async streamEvents(
    @Auth() auth: AuthContext,
    @Query() query: StreamQueryDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.stream.open(auth, req, reply, null, query.last_event_id);
  }

  @Get('deals/:deal_id')
  @Authenticated('deals:read')
  @ApiOperation({ summary: 'Live events of one deal' })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Replay the events after this id, then continue live' })
  @ApiOkResponse(STREAM_DOC)
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  async streamDealEvents(
    @Auth() auth: AuthContext,
    @IdParam('deal_id') dealId: number,
    @Query() query: StreamQueryDto,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.stream.open(auth, req, reply, dealId, query.last_event_id);
  }
}
