import { Module } from '@nestjs/common';
import { RulesetsController } from './rulesets.controller';
import { RulesetsService } from './rulesets.service';

/**
 * Rulesets: the funder's scoring rules, one default per organization and mode. The pipeline
 * evaluates deals with them (RulesetsService.defaultRuleset, findMany).
 */
@Module({
  controllers: [RulesetsController],
  providers: [RulesetsService],
  exports: [RulesetsService],
})
export class RulesetsModule {}
