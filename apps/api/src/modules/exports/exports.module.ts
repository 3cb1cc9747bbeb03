import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { ExportsController } from './exports.controller';
import { ExportsService } from './exports.service';

/** PDF underwriting report, CSV and JSON exports. */
@Module({
  imports: [PipelineModule],
  controllers: [ExportsController],
  providers: [ExportsService],
})
export class ExportsModule {}
