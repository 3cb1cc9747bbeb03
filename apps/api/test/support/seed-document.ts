import { Readable } from 'node:stream';
import { Database } from '../../src/platform/database/database.service';
import { FileStore } from '../../src/platform/storage/file-store';
import { Document } from '../../src/modules/pipeline/entities/document.entities';
import { TestApp } from './harness';

/**
 * A document row in any status, as a crashed or older process would have left it: with `bytes`
 * stored in the FileStore, or pointing at `storageKey` (a file that may not exist).
 */
export async function seedDocument(
  app: TestApp,
  organizationId: number,
  dealId: number,
  status: Document['status'],
  file: { bytes: Uint8Array } | { storageKey: string },
): Promise<Document> {
  const stored =
    'bytes' in file ? await app.get(FileStore).put(Readable.from([Buffer.from(file.bytes)]), 10_000_000, `${organizationId}/live`) : null;
  const em = app.get(Database).forScope({ organizationId, livemode: true });
  const doc = em.create(Document, {
    organizationId,
    livemode: true,
    dealId,
    filename: 'seeded.pdf',
    fileSize: stored?.size ?? 1,
    mimeType: 'application/pdf',
    sha256: stored?.sha256 ?? '0'.repeat(64),
    storageKey: stored?.key ?? ('storageKey' in file ? file.storageKey : ''),
    status,
  });
  await em.flush();
  return doc;
}
