import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { AuthContext } from '../../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../../platform/errors/error.dto';
import { AckDto } from '../../../platform/http/ack.dto';
import { IdParam } from '../../../platform/http/id-param';
import { Idempotent } from '../../../platform/idempotency/idempotency.interceptor';
import { DealsService } from '../services/deals.service';
import {
  BatchCreateResultDto,
  CreateDealDto,
  DealDetailDto,
  DealListDto,
  DealStatsDto,
  DealSummaryDto,
  DecisionDto,
  DecisionResultDto,
  ListDealsQueryDto,
  RescoreResultDto,
  UpdateDealDto,
} from '../dto/deal.dto';

@ApiTags('Deals')
@Controller('v1/deals')
export class DealsController {
  constructor(private readonly deals: DealsService) {}

  @Get()
  @Authenticated('deals:read')
  @ApiOkResponse({ type: DealListDto })
  listDeals(@Auth() auth: AuthContext, @Query() query: ListDealsQueryDto): Promise<DealListDto> {
    return this.deals.list(auth, query);
  }

  @Get('stats')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: DealStatsDto })
  getDealStats(@Auth() auth: AuthContext): Promise<DealStatsDto> {
    return this.deals.stats(auth);
  }

  @Post()
  @Idempotent()
  @Authenticated('deals:write')
  @ApiCreatedResponse({ type: DealSummaryDto })
  @ApiOkResponse({ type: DealSummaryDto, description: 'Replay of a stored response for the same Idempotency-Key' })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto })
  createDeal(@Auth() auth: AuthContext, @Body() dto: CreateDealDto): Promise<DealSummaryDto> {
    return this.deals.create(auth, dto);
  }

  @Post('batch')
  @HttpCode(200)
  @Authenticated('deals:write')
  @ApiBody({ type: [CreateDealDto], description: 'Up to 50 deals; `{"deals": [...]}` is accepted too' })
  @ApiOkResponse({ type: BatchCreateResultDto })
  createDealsBatch(@Auth() auth: AuthContext, @Body() body: unknown): Promise<BatchCreateResultDto> {
    return this.deals.createBatch(auth, body);
  }

  @Get(':deal_id')
  @Authenticated('deals:read')
  @ApiOkResponse({ type: DealDetailDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  getDeal(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<DealDetailDto> {
    return this.deals.get(auth, id);
  }

  @Patch(':deal_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: DealDetailDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  updateDeal(@Auth() auth: AuthContext, @IdParam('deal_id') id: number, @Body() dto: UpdateDealDto): Promise<DealDetailDto> {
    return this.deals.update(auth, id, dto);
  }

  @Delete(':deal_id')
  @Authenticated('deals:write')
  @ApiOkResponse({ type: AckDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  deleteDeal(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<AckDto> {
    return this.deals.remove(auth, id);
  }

  @Post(':deal_id/rescore')
  @HttpCode(200)
  @Authenticated('deals:write')
  @ApiOkResponse({
    type: RescoreResultDto,
    description: 'Rescored (or nothing changed since the last scoring: `rescored` false, nothing written)',
  })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse({
    type: ErrorEnvelopeDto,
    description: 'The deal is not ready (processing: it is scored when its documents are done)',
  })
  rescoreDeal(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<RescoreResultDto> {
    return this.deals.rescore(auth, id);
  }

  @Post(':deal_id/decision')
  @HttpCode(200)
  @Authenticated('deals:write')
  @ApiOkResponse({ type: DecisionResultDto })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiUnprocessableEntityResponse({ type: ErrorEnvelopeDto, description: 'INVALID_DECISION' })
  decideDeal(@Auth() auth: AuthContext, @IdParam('deal_id') id: number, @Body() dto: DecisionDto): Promise<DecisionResultDto> {
    return this.deals.decide(auth, id, dto);
  }
}
