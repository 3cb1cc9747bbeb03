import { Module } from '@nestjs/common';
import { RulesetsModule } from '../rulesets/rulesets.module';
import { PipelineService } from './pipeline.service';

@Module({ imports: [RulesetsModule], providers: [PipelineService], exports: [PipelineService] })
export class PipelineModule {}
