import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../../platform/config/config';
import { DocumentJob, JobQueue, QUEUES } from '../../../platform/queue/job-queue';
import { Document } from '../entities/document.entities';
import { DocumentRepository } from '../repositories/document.repository';
import { documentJobId } from './processing.jobs';

/**
 * The producer side of the documents queue: document commands enqueue here, and a starting
 * process re-queues what a previous one left unfinished. The processor consumes the same queue.
 */
@Injectable()
export class DocumentProducer {
  private readonly logger = new Logger('Processing');
  constructor(
    private readonly documents: DocumentRepository,
    private readonly queue: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Queues a document fairly between organizations: its priority is its place in its
   * organization's backlog (the unfinished documents up to it), so every organization's first
   * waiting document runs before any organization's second, and so on; one organization's
   * thousand uploads never make another's first statement wait behind them.
   */
  async enqueue(doc: Pick<Document, 'id' | 'attempt' | 'organizationId'>): Promise<void> {
    const place = await this.documents.placeInBacklog(doc);
    await this.queue.enqueue<DocumentJob>(
      QUEUES.documents,
      documentJobId(doc),
      { documentId: doc.id, attempt: doc.attempt },
      { priority: Math.max(1, place) },
    );
  }

  /**
   * Re-queues every document a previous process left unfinished (called once the server listens).
   * A job still waiting or running keeps its place; otherwise a fresh job id is used, since the
   * failed job of the same id is kept by BullMQ and would swallow the new one.
   */
  async recover(): Promise<number> {
    if (this.config.role === 'api') return 0;
    const docs = await this.documents.findUnfinishedBacklog();
    // the same fair order as enqueue(): each document's place in its organization's backlog
    const places = new Map<number, number>();
    for (const doc of docs) {
      const place = (places.get(doc.organizationId) ?? 0) + 1;
      places.set(doc.organizationId, place);
      await this.queue.resubmit<DocumentJob>(
        QUEUES.documents,
        documentJobId(doc),
        { documentId: doc.id, attempt: doc.attempt },
        { priority: place },
      );
    }
    if (docs.length) this.logger.log(`Resumed ${docs.length} unfinished document(s)`);
    return docs.length;
  }
}
