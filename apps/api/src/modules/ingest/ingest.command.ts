import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AuthContext } from '../../platform/auth/auth-context';
import { SecretBox } from '../../platform/crypto/secret-box';
import { Database } from '../../platform/database/database.service';
import { scopeFields } from '../../platform/database/tenant';
import { entityManagerOf } from '../../platform/database/unit-of-work';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { OutboundHttp } from '../../platform/outbound/outbound-http';
import { flatten } from '../../platform/validation/validation.pipe';
import { CreateDocumentsCommand, StagedFile } from '../pipeline/services/create-documents.command';
import { ReceivedUpload } from '../pipeline/controllers/upload-request';
import { WebhookConfig } from '../webhooks/webhooks.entities';
import { DealCriteria, DealMatcher } from './deal-matcher';
import { IngestAcceptedDto, IngestMetadataDto, MAX_INGEST_FILE_BYTES, MAX_INGEST_FILES } from './dto/ingest.dto';
import { IngestBatch, IngestBatchDocument } from './ingest.entities';

export const newBatchId = () => `bat_${randomBytes(12).toString('hex')}`;

/** An ingest request reduced to plain data: the deal criteria, the callback and a label per file. */
export interface IngestInput {
  criteria: DealCriteria;
  callback: { url: string; secret: string | null; field: string[] } | null;
  label: (filename: string, index: number) => string | null;
}

const metadataError = (path: (string | number)[], msg: string, type = 'value_error') =>
  ApiError.validation([validationEntry('body', ['metadata', ...path], msg, type)]);

/** The `metadata` field in either form (Form A flat, Form B `deal_matching`/`callback`/`labels`). */
export async function parseIngestMetadata(raw: string | undefined): Promise<IngestInput> {
  let json: unknown = {};
  if (raw !== undefined && raw.trim() !== '') {
    try {
      json = JSON.parse(raw);
    } catch {
      throw metadataError([], 'metadata must be a JSON object (a string form field)', 'type_error.json');
    }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw metadataError([], 'metadata must be a JSON object', 'type_error.dict');
  const dto = plainToInstance(IngestMetadataDto, json);
  const problems = await validate(dto, { whitelist: true, forbidUnknownValues: false });
  if (problems.length) throw ApiError.validation(flatten(problems, 'body', ['metadata']));
  if (dto.file_labels?.some((v) => v !== null && (typeof v !== 'string' || v.length > 255)))
    throw metadataError(['file_labels'], 'file_labels must be strings of at most 255 characters (or null)', 'type_error.str');
  if (dto.labels && Object.values(dto.labels).some((v) => typeof v !== 'string' || v.length > 255))
    throw metadataError(['labels'], 'labels must map each filename to a string of at most 255 characters', 'type_error.str');
  const m = dto.deal_matching ?? {};
  const criteria: DealCriteria = {
    dealId: dto.deal_id ?? null,
    externalReference: dto.external_reference ?? m.external_reference ?? null,
    ein: dto.ein ?? m.ein ?? null,
    businessName: (dto.business_name ?? m.business_name)?.trim() || null,
    fundingAmountRequested: dto.funding_amount_requested ?? null,
  };
  if (criteria.dealId === null && criteria.externalReference === null && criteria.businessName === null)
    throw metadataError(
      ['business_name'],
      'business_name is required when neither deal_id nor external_reference is given',
      'value_error.missing',
    );
  const callback = dto.callback
    ? { url: dto.callback.url, secret: dto.callback.secret, field: ['callback', 'url'] }
    : dto.callback_url
      ? { url: dto.callback_url, secret: dto.callback_secret ?? null, field: ['callback_url'] }
      : null;
  const fileLabels = dto.file_labels ?? [];
  const byName = dto.labels ?? {};
  return {
    criteria,
    callback,
    label: (filename, index) => fileLabels[index] ?? byName[filename] ?? null,
  };
}

/** The ingest limits: 1-20 PDF files of at most 20 MB each; the request fails as a whole. */
export function checkIngestFiles(files: StagedFile[]): void {
  if (files.length === 0)
    throw ApiError.validation([
      validationEntry('body', ['files'], 'At least one file is required (multipart field "files" or "files[]")', 'value_error.missing'),
    ]);
  if (files.some((f) => f.error?.code === 'TOO_MANY_FILES'))
    throw ApiError.validation([
      validationEntry('body', ['files'], `At most ${MAX_INGEST_FILES} files per ingest`, 'value_error.list.max_items'),
    ]);
  for (const f of files) {
    if (f.error?.code === 'PAYLOAD_TOO_LARGE' || (f.stored && f.stored.size > MAX_INGEST_FILE_BYTES))
      throw new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `${f.filename}: a file may be at most ${MAX_INGEST_FILE_BYTES} bytes (20 MB)`);
    if (f.error?.code === 'EMPTY_FILE')
      throw ApiError.validation([validationEntry('body', ['files'], `${f.filename}: the file is empty`, 'value_error.empty')]);
    if (f.error || f.mimeType !== 'application/pdf')
      throw new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `${f.filename}: ingest accepts PDF files only (checked by content)`);
  }
}

/**
 * Bulk ingest as one command (one class per use case, like CreateDocumentsCommand:
 * docs/architecture.md, "An upload"): the files are already staged by the document command; this
 * validates the request, finds or creates the deal, and creates the documents and the batch through
 * the one document-creation command, in its transaction. Completion follows from domain events
 * (BatchCompletion).
 */
@Injectable()
export class IngestFilesCommand {
  constructor(
    private readonly db: Database,
    private readonly documents: CreateDocumentsCommand,
    private readonly matcher: DealMatcher,
    private readonly outbound: OutboundHttp,
    private readonly box: SecretBox,
  ) {}

  async execute(auth: AuthContext, received: ReceivedUpload): Promise<IngestAcceptedDto> {
    try {
      const input = await parseIngestMetadata(received.fields.metadata);
      checkIngestFiles(received.files);
      const callback = input.callback ? await this.sealCallback(auth, input.callback) : null;
      const match = await this.matcher.resolve(auth, input.criteria);
      const batchId = newBatchId();
      const createdAt = new Date();
      const staged = received.files.map((f, i) => ({ ...f, label: input.label(f.filename, i) }));
      const docs = await this.documents.execute(auth, match.deal.id, staged, async (work, created) => {
        // the batch's own rows, in the unit of work that creates its documents
        const tx = entityManagerOf(work);
        tx.create(IngestBatch, {
          ...scopeFields(auth),
          id: batchId,
          dealId: match.deal.id,
          dealMatched: match.matched,
          matchMethod: match.method,
          total: created.length,
          callbackUrl: callback?.url ?? null,
          callbackSecretSealed: callback?.secretSealed ?? null,
          createdAt,
        });
        await tx.flush(); // the batch row before its document rows (no ORM relation orders them)
        created.forEach((doc, position) => tx.create(IngestBatchDocument, { ...scopeFields(auth), batchId, documentId: doc.id, position }));
      });
      return {
        batch_id: batchId,
        deal_id: match.deal.id,
        deal_matched: match.matched,
        match_method: match.method,
        status: 'pending',
        documents: docs.map((d) => ({
          id: d.id,
          document_id: d.id,
          filename: d.filename,
          label: d.label,
          status: 'uploaded' as const,
          size_bytes: d.fileSize,
        })),
        files: docs.map((d) => ({
          filename: d.filename,
          document_id: d.id,
          label: d.label,
          status: 'queued' as const,
          size_bytes: d.fileSize,
        })),
        created_at: createdAt.toISOString(),
      };
    } catch (err) {
      await this.documents.discard(received.files);
      throw err;
    }
  }

  /** Checks the URL (HTTPS, not a private address) and seals the secret; Form A may rely on the webhook secret. */
  private async sealCallback(
    auth: AuthContext,
    callback: NonNullable<IngestInput['callback']>,
  ): Promise<{ url: string; secretSealed: string }> {
    const problem = this.outbound.urlProblem(callback.url);
    if (problem) throw metadataError(callback.field, `${callback.field.join('.')} ${problem}`, 'value_error.url');
    if (callback.secret !== null) return { url: callback.url, secretSealed: this.box.seal(callback.secret) };
    const webhook = await this.db.forScope(auth).findOne(WebhookConfig, {});
    if (!webhook)
      throw metadataError(
        ['callback_secret'],
        'callback_url needs a signing secret: give callback_secret (or callback {url, secret}), or configure a webhook whose secret is used',
        'value_error.missing',
      );
    return { url: callback.url, secretSealed: webhook.secretSealed };
  }
}
