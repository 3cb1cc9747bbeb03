import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { DocumentJob, JobQueue, QUEUES } from '../../platform/queue/job-queue';
import { Document, TERMINAL_STATUSES } from '../documents/documents.entities';
import { documentJobId } from './processing.jobs';

/**
 * The producer side of the documents queue: document commands enqueue here, and a starting
 * process re-queues what a previous one left unfinished. The processor consumes the same queue.
 */
@Injectable()
export class DocumentProducer {
  private readonly logger = new Logger('Processing');
  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async enqueue(doc: Pick<Document, 'id' | 'attempt'>): Promise<void> {
    await this.queue.enqueue<DocumentJob>(QUEUES.documents, documentJobId(doc), { documentId: doc.id, attempt: doc.attempt });
  }

  /**
   * Re-queues every document a previous process left unfinished (called once the server listens).
   * A job still waiting or running keeps its place; otherwise a fresh job id is used, since the
   * failed job of the same id is kept by BullMQ and would swallow the new one.
   */
  async recover(): Promise<number> {
    if (this.config.role === 'api') return 0;
    const em = this.db.system();
    const docs = await em.find(
      Document,
      { status: { $nin: [...TERMINAL_STATUSES] } },
      { filters: false, fields: ['id', 'attempt'], orderBy: { id: 'asc' } },
    );
    for (const doc of docs)
      await this.queue.resubmit<DocumentJob>(QUEUES.documents, documentJobId(doc), { documentId: doc.id, attempt: doc.attempt });
    if (docs.length) this.logger.log(`Resumed ${docs.length} unfinished document(s)`);
    return docs.length;
  }
}
