import { Module } from '@nestjs/common';
import { PipelineModule } from '../pipeline/pipeline.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BatchCompletion } from './batch-completion.service';
import { DealMatcher } from './deal-matcher';
import { IngestFilesCommand } from './ingest.command';
import { IngestController } from './ingest.controller';
import { IngestService } from './ingest.service';

/** Bulk ingest: files to documents of a matched or new deal, batch status, completion events and signed callbacks. */
@Module({
  imports: [PipelineModule, WebhooksModule],
  controllers: [IngestController],
  providers: [IngestService, IngestFilesCommand, DealMatcher, BatchCompletion],
})
export class IngestModule {}
