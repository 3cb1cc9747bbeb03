import { Inject, Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { APP_CONFIG, AppConfig } from '../../../platform/config/config';
import { Database } from '../../../platform/database/database.service';
import { Scope, scopeFields } from '../../../platform/database/tenant';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { recordEvent } from '../../../platform/events/events';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { FileStore, FileTooLargeError, sniffMime, StoredFile } from '../../../platform/storage/file-store';
import { truncateText } from '../../../platform/text/truncate';
import { UsageMeter } from '../../../platform/usage/usage-meter';
import { DealLifecycleService } from './deal-lifecycle.service';
import { DealRepository } from '../repositories/deal.repository';
import { DocumentRepository } from '../repositories/document.repository';
import { DocumentProducer } from './processing.producer';
import { Document, DocumentType } from '../entities/document.entities';

/**
 * A sender's file name as stored: control characters dropped (a NUL, as `filename*=UTF-8''ev%00il.pdf`
 * decodes to, cannot be stored in text), at most 500 UTF-16 units cut between characters; 'upload' when nothing is left.
 */
export function cleanFilename(name: string | null | undefined): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return truncateText((name ?? '').replace(/[\u0000-\u001f\u007f]/g, ''), 500) || 'upload';
}

/** A file as every entry point has it: HTTP upload, bulk upload, ingest, the CLI. */
export interface PlainFile {
  filename: string;
  /** the content, whole (CLI, tests) ... */
  bytes?: Uint8Array;
  /** ... or as a stream (uploads: stored as it arrives, with the size limit enforced) */
  stream?: Readable;
  label?: string | null;
  typeHint?: DocumentType | null;
  /** ISO 4217, declared by the sender */
  currency?: string | null;
}

/** A file stored and checked, not yet a document; `error` says why it will not become one. */
export interface StagedFile {
  filename: string;
  label: string | null;
  typeHint: DocumentType | null;
  currency: string | null;
  stored: StoredFile | null;
  mimeType: string | null;
  error: { code: 'EMPTY_FILE' | 'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE' | 'TOO_MANY_FILES'; detail: string } | null;
}

export interface Caller extends Scope {
  actor: string | null;
}

/**
 * Document creation, one command for every way a file arrives: `stage` stores each file (the
 * original, unmodified) and checks it by content; `execute` creates the documents, tells the
 * deal's lifecycle and records `document.uploaded`, in one transaction, then queues processing.
 */
@Injectable()
export class CreateDocumentsCommand {
  constructor(
    private readonly db: Database,
    private readonly deals: DealRepository,
    private readonly documents: DocumentRepository,
    private readonly files: FileStore,
    private readonly producer: DocumentProducer,
    private readonly lifecycle: DealLifecycleService,
    private readonly events: EventDispatcher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly usage: UsageMeter,
  ) {}

  async stage(scope: Scope, file: PlainFile): Promise<StagedFile> {
    const base = {
      filename: cleanFilename(file.filename),
      label: file.label ?? null,
      typeHint: file.typeHint ?? null,
      currency: file.currency ?? null,
      stored: null,
      mimeType: null,
    };
    const { maxFileBytes } = this.config.uploads;
    const source = file.stream ?? Readable.from([Buffer.from(file.bytes ?? new Uint8Array())]);
    let stored: StoredFile;
    try {
      stored = await this.files.put(source, maxFileBytes, `${scope.organizationId}/${scope.livemode ? 'live' : 'test'}`);
    } catch (err) {
      if (!(err instanceof FileTooLargeError)) throw err;
      return { ...base, error: { code: 'PAYLOAD_TOO_LARGE', detail: `File is larger than ${maxFileBytes} bytes` } };
    }
    const mimeType = sniffMime(stored.head);
    if (stored.size === 0 || !mimeType) {
      await this.files.delete(stored.key);
      return {
        ...base,
        error:
          stored.size === 0
            ? { code: 'EMPTY_FILE', detail: 'The file is empty' }
            : { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'Only PDF, PNG, JPG and TIFF files are accepted (checked by content)' },
      };
    }
    return { ...base, stored, mimeType, error: null };
  }

  /** Removes what `stage` stored for files that will not become documents. */
  async discard(staged: StagedFile[]): Promise<void> {
    await Promise.all(staged.filter((f) => f.stored).map((f) => this.files.delete(f.stored!.key)));
  }

  /**
   * Creates a document per staged file without error (404 DEAL_NOT_FOUND outside the caller's scope).
   * `inTransaction` lets a caller write its own rows about the new documents (an ingest batch) in
   * the same transaction, before any of them is queued.
   */
  async execute(
    caller: Caller,
    dealId: number,
    staged: StagedFile[],
    inTransaction?: (tx: UnitOfWork, documents: Document[]) => void | Promise<void>,
  ): Promise<Document[]> {
    const good = staged.filter((f) => f.stored && !f.error);
    if (!good.length) return [];
    // Live documents count against the monthly quota (429 QUOTA_EXCEEDED, nothing created).
    const metered = caller.livemode ? good.length : 0;
    await this.usage.reserveDocuments(caller.organizationId, metered);
    const docs = await this.db
      .unitOfWork(caller)
      .transaction(async (tx) => {
        const deal = await this.deals.getOr404(tx, dealId, { lock: true });
        const now = new Date();
        const created = good.map((f) =>
          this.documents.create(tx, {
            ...scopeFields(caller),
            dealId,
            filename: f.filename,
            label: f.label,
            fileSize: f.stored!.size,
            mimeType: f.mimeType!,
            sha256: f.stored!.sha256,
            storageKey: f.stored!.key,
            documentTypeHint: f.typeHint,
            currency: f.currency,
            createdAt: now,
            updatedAt: now,
          }),
        );
        await tx.flush();
        this.lifecycle.documentsQueued(tx, caller, deal, created.length, now);
        for (const doc of created) {
          recordEvent(tx, caller, 'document.uploaded', {
            dealId,
            actor: caller.actor,
            data: { document_id: doc.id, deal_id: dealId, filename: doc.filename, document_type: doc.documentTypeHint },
          });
        }
        await inTransaction?.(tx, created);
        return created;
      })
      .catch(async (err: unknown) => {
        await this.usage.releaseDocuments(caller.organizationId, metered);
        throw err;
      });
    this.events.notify();
    for (const doc of docs) await this.producer.enqueue(doc);
    return docs;
  }

  /** Stage then execute (the CLI, ingest): the rejected files are returned, nothing of them kept. */
  async run(caller: Caller, dealId: number, files: PlainFile[]): Promise<{ documents: Document[]; rejected: StagedFile[] }> {
    await this.deals.getOr404(this.db.unitOfWork(caller), dealId);
    const staged: StagedFile[] = [];
    try {
      for (const file of files) staged.push(await this.stage(caller, file));
      return { documents: await this.execute(caller, dealId, staged), rejected: staged.filter((f) => f.error) };
    } catch (err) {
      await this.discard(staged);
      throw err;
    }
  }
}
