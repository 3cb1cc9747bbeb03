import { Module } from '@nestjs/common';
import { DealsModule } from '../deals/deals.module';
import { PipelineModule } from '../pipeline/pipeline.module';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';

@Module({ imports: [PipelineModule, DealsModule], controllers: [DocumentsController], providers: [DocumentsService], exports: [DocumentsService] })
export class DocumentsModule {}
