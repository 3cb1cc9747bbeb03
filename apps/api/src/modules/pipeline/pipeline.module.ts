import { Module } from '@nestjs/common';
import { LendersModule } from '../lenders/lenders.module';
import { RulesetsModule } from '../rulesets/rulesets.module';
import { DealsController } from './controllers/deals.controller';
import { DocumentsController } from './controllers/documents.controller';
import { RecommendationsController } from './controllers/recommendations.controller';
import { TransactionsController } from './controllers/transactions.controller';
import { UploadRequestReader } from './controllers/upload-request';
import { DealRepository } from './repositories/deal.repository';
import { DocumentRepository } from './repositories/document.repository';
import { RecommendationRepository } from './repositories/recommendation.repository';
import { TransactionRepository } from './repositories/transaction.repository';
import { CreateDocumentsCommand } from './services/create-documents.command';
import { DealLifecycleService } from './services/deal-lifecycle.service';
import { DealsService } from './services/deals.service';
import { DocumentsService } from './services/documents.service';
import { DocumentProcessor } from './services/processing.processor';
import { DocumentProducer } from './services/processing.producer';
import { RecommendationsService } from './services/recommendations.service';
import { SummaryService } from './services/summary.service';
import { TransactionsService } from './services/transactions.service';

/**
 * The pipeline: deals (records, lifecycle, report, recommendation, AI summary), documents (uploads,
 * commands), their processing (the documents queue) and transactions (rows, corrections). Its
 * repositories hold every query of the module; other modules use the services exported here, or
 * its events (docs/architecture.md).
 */
@Module({
  imports: [RulesetsModule, LendersModule],
  controllers: [DealsController, DocumentsController, TransactionsController, RecommendationsController],
  providers: [
    DealRepository,
    DocumentRepository,
    TransactionRepository,
    RecommendationRepository,
    // SummaryService before DealLifecycleService: the order their outbox subscribers run in.
    SummaryService,
    DealsService,
    DealLifecycleService,
    DocumentsService,
    CreateDocumentsCommand,
    UploadRequestReader,
    DocumentProducer,
    DocumentProcessor,
    TransactionsService,
    RecommendationsService,
  ],
  exports: [
    DealsService,
    TransactionsService,
    DealLifecycleService,
    DocumentsService,
    CreateDocumentsCommand,
    UploadRequestReader,
    DocumentProducer,
    DocumentProcessor,
    RecommendationsService,
    SummaryService,
  ],
})
export class PipelineModule {}
