import { Module } from '@nestjs/common';
import { RecommendationsController } from './recommendations.controller';
import { RecommendationsService } from './recommendations.service';
import { RulesetsController } from './rulesets.controller';
import { RulesetsService } from './rulesets.service';
import { SummaryService } from './summary.service';

/**
 * Rulesets, recommendations, what-if evaluation and the AI summary. The pipeline uses
 * RecommendationsService.generateDefault and SummaryService.summarize / requestSummary.
 */
@Module({
  controllers: [RulesetsController, RecommendationsController],
  providers: [RulesetsService, RecommendationsService, SummaryService],
  exports: [RulesetsService, RecommendationsService, SummaryService],
})
export class RulesetsModule {}
