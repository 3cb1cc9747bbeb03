import { Module } from '@nestjs/common';
import { DealsModule } from '../deals/deals.module';
import { ProcessingModule } from '../processing/processing.module';
import { CreateDocumentsCommand } from './create-documents.command';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';
import { UploadRequestReader } from './upload-request';

@Module({
  imports: [ProcessingModule, DealsModule],
  controllers: [DocumentsController],
  providers: [DocumentsService, CreateDocumentsCommand, UploadRequestReader],
  exports: [DocumentsService, CreateDocumentsCommand, UploadRequestReader],
})
export class DocumentsModule {}
