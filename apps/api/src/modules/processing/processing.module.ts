import { Module } from '@nestjs/common';
import { DealsModule } from '../deals/deals.module';
import { DocumentProcessor } from './processing.processor';
import { DocumentProducer } from './processing.producer';

/** The documents queue: its producer (enqueue, resume) and its processor (the steps). */
@Module({ imports: [DealsModule], providers: [DocumentProducer, DocumentProcessor], exports: [DocumentProducer, DocumentProcessor] })
export class ProcessingModule {}
