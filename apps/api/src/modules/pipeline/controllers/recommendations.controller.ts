import { Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiExtraModels, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { AuthContext } from '../../../platform/auth/auth-context';
import { Auth, Authenticated } from '../../../platform/auth/decorators';
import { ErrorEnvelopeDto } from '../../../platform/errors/error.dto';
import { IdParam } from '../../../platform/http/id-param';
import { EvaluateQueryDto, EvaluationResultDto, FactorScoreDto, RecommendationDto, SummaryAcceptedDto } from '../dto/recommendation.dto';
import { RecommendationsService } from '../services/recommendations.service';
import { SummaryService } from '../services/summary.service';

const NOT_READY = { type: ErrorEnvelopeDto, description: 'CONFLICT: the deal is not ready' };

@ApiTags('Deals')
@ApiExtraModels(FactorScoreDto)
@Controller('v1/deals')
export class RecommendationsController {
  constructor(
    private readonly recommendations: RecommendationsService,
    private readonly summaries: SummaryService,
  ) {}

  @Get(':deal_id/recommendation')
  @Authenticated('deals:read')
  @ApiOkResponse({
    type: RecommendationDto,
    description: 'Computed with the default ruleset; served from a 30-second cache (`cached: true`) while the default ruleset is unchanged',
  })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse(NOT_READY)
  getDealRecommendation(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<RecommendationDto> {
    return this.recommendations.get(auth, id);
  }

  @Post(':deal_id/evaluate')
  @HttpCode(200)
  @Authenticated('deals:read')
  @ApiOkResponse({
    type: EvaluationResultDto,
    description: 'What-if evaluation with each ruleset asked for (or the default); nothing is stored',
  })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto, description: 'DEAL_NOT_FOUND, or NOT_FOUND for an unknown ruleset id' })
  @ApiConflictResponse(NOT_READY)
  evaluateDeal(@Auth() auth: AuthContext, @IdParam('deal_id') id: number, @Query() query: EvaluateQueryDto): Promise<EvaluationResultDto> {
    return this.recommendations.evaluate(auth, id, query);
  }

  @Post(':deal_id/regenerate-summary')
  @HttpCode(202)
  @Authenticated('deals:write')
  @ApiAcceptedResponse({
    type: SummaryAcceptedDto,
    description: 'The AI summary is regenerated asynchronously and written to the deal report',
  })
  @ApiNotFoundResponse({ type: ErrorEnvelopeDto })
  @ApiConflictResponse(NOT_READY)
  regenerateDealSummary(@Auth() auth: AuthContext, @IdParam('deal_id') id: number): Promise<SummaryAcceptedDto> {
    return this.summaries.regenerate(auth, id);
  }
}
