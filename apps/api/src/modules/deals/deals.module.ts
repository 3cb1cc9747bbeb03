import { Module } from '@nestjs/common';
import { RulesetsModule } from '../rulesets/rulesets.module';
import { DealLifecycleService } from './deal-lifecycle.service';
import { DealsController } from './deals.controller';
import { DealsService } from './deals.service';

@Module({
  imports: [RulesetsModule],
  controllers: [DealsController],
  providers: [DealsService, DealLifecycleService],
  exports: [DealsService, DealLifecycleService],
})
export class DealsModule {}
