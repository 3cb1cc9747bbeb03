import { Module } from '@nestjs/common';
import { DealsModule } from '../deals/deals.module';
import { PipelineService } from './pipeline.service';

@Module({ imports: [DealsModule], providers: [PipelineService], exports: [PipelineService] })
export class PipelineModule {}
