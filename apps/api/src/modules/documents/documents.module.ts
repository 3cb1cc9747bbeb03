import { Module } from '@nestjs/common';
import { DealsModule } from '../deals/deals.module';
import { PipelineModule } from '../pipeline/pipeline.module';
import { CreateDocumentsCommand } from './create-documents.command';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';
import { UploadRequestReader } from './upload-request';

@Module({
  imports: [PipelineModule, DealsModule],
  controllers: [DocumentsController],
  providers: [DocumentsService, CreateDocumentsCommand, UploadRequestReader],
  exports: [DocumentsService, CreateDocumentsCommand],
})
export class DocumentsModule {}
