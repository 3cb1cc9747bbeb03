import { Module } from '@nestjs/common';
import { RulesetsModule } from '../rulesets/rulesets.module';
import { ExportsController } from './exports.controller';
import { ExportsService } from './exports.service';

/** PDF underwriting report, CSV and JSON exports. */
@Module({
  imports: [RulesetsModule],
  controllers: [ExportsController],
  providers: [ExportsService],
})
export class ExportsModule {}
