import type { LedgerlensCore } from '../core.js';
import { delay } from '../delay.js';
import { LedgerlensWaitError } from '../errors.js';
import type { CommonRequestOptions, components } from '../types.js';
import { toFile, type UploadFile, type UploadSource } from '../upload.js';
import { unwrap } from '../unwrap.js';

type S = components['schemas'];

export interface IngestOptions extends CommonRequestOptions {
  /** Your organization's id: sent as `X-Org-Id` (must match the credential's organization). */
  orgId: number | string;
  /** Largest stream read into memory per file (streams are buffered so retries can resend them). */
  maxStreamBytes?: number;
}

/** `client.ingest`: bulk intake of statements with deal matching and a signed completion callback. */
export class IngestResource {
  constructor(private readonly client: LedgerlensCore) {}

  /**
   * Uploads up to 20 files in one batch. `metadata` picks or creates the deal (deal_id, external
   * reference, EIN or business name), labels the files and names an optional signed callback.
   * Answers 202 with the batch; an Idempotency-Key (generated unless given) makes retries safe.
   */
  async upload(
    files: (UploadSource | UploadFile)[],
    metadata: S['IngestMetadataDto'],
    options: IngestOptions,
  ): Promise<S['IngestAcceptedDto']> {
    const { orgId, maxStreamBytes, ...rest } = options;
    const form = new FormData();
    form.append('metadata', JSON.stringify(metadata));
    for (const f of files) form.append('files', await toFile(f, maxStreamBytes));
    const { data } = await this.client.request<S['IngestAcceptedDto']>('POST', '/v1/ingest', {
      ...rest,
      headers: { ...rest.headers, 'X-Org-Id': String(orgId) },
      body: form,
    });
    return data;
  }

  /** Creates deals in bulk from applications (Form C); existing external references are skipped. */
  async applications(body: S['IngestApplicationsDto'], options: IngestOptions): Promise<S['IngestApplicationsResultDto']> {
    const { orgId, maxStreamBytes: _unused, ...rest } = options;
    const { data } = await this.client.request<S['IngestApplicationsResultDto']>('POST', '/v1/ingest', {
      ...rest,
      headers: { ...rest.headers, 'X-Org-Id': String(orgId) },
      body,
    });
    return data;
  }

  /** Batch status (Form A). */
  async status(batchId: string, options: IngestOptions): Promise<S['IngestBatchStatusDto']> {
    const { orgId, maxStreamBytes: _unused, ...rest } = options;
    return (
      await this.client.request<S['IngestBatchStatusDto']>('GET', '/v1/ingest/{batch_id}', {
        ...rest,
        params: { path: { batch_id: batchId } },
        headers: { ...rest.headers, 'X-Org-Id': String(orgId) },
      })
    ).data;
  }

  /** Batch detail (Form B): per-document period and transaction count, the recommendation once done. */
  async batch(batchId: string, options: IngestOptions): Promise<S['IngestBatchDetailResponseDto']['data']> {
    const { orgId, maxStreamBytes: _unused, ...rest } = options;
    return unwrap(
      (
        await this.client.request<S['IngestBatchDetailResponseDto']>('GET', '/v1/ingest/batches/{batch_id}', {
          ...rest,
          params: { path: { batch_id: batchId } },
          headers: { ...rest.headers, 'X-Org-Id': String(orgId) },
        })
      ).data,
    );
  }

  /** Polls the batch until `completed` (LedgerlensWaitError `timeout` otherwise). */
  async waitUntilCompleted(
    batchId: string,
    options: IngestOptions & { timeoutMs?: number; pollIntervalMs?: number },
  ): Promise<S['IngestBatchStatusDto']> {
    const { timeoutMs = 600_000, pollIntervalMs = 2000, ...rest } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const batch = await this.status(batchId, rest);
      if (batch.status === 'completed') return batch;
      if (Date.now() + pollIntervalMs > deadline)
        throw new LedgerlensWaitError(`batch ${batchId} not completed after ${timeoutMs} ms`, 'timeout', batch);
      await delay(pollIntervalMs, rest.signal);
    }
  }
}
