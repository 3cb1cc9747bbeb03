import { normalizeBusinessName } from './deal-matcher';
import { IngestBatch } from './ingest.entities';
import { batchStatusOf } from './ingest.service';
import type { DocumentRecord } from '../pipeline/records';

describe('normalizeBusinessName', () => {
  it.each([
    ['Acme Bakery, LLC', 'acme bakery'],
    ['ACME  bakery l.l.c.', 'acme bakery'],
    ['The Acme Bakery Inc.', 'acme bakery'],
    ['Café Résumé & Co', 'cafe resume'],
    ["Joe's Diner Corp", 'joes diner'],
    ['Smith and Sons Ltd', 'smith and sons'],
    ['Smith & Sons', 'smith and sons'],
  ])('%s -> %s', (name, key) => expect(normalizeBusinessName(name)).toBe(key));

  it('keeps the words that distinguish businesses', () => {
    expect(normalizeBusinessName('Acme Bakery North')).not.toBe(normalizeBusinessName('Acme Bakery South'));
    expect(normalizeBusinessName('Bakery Acme')).not.toBe(normalizeBusinessName('Acme Bakery'));
    // a name that is only a legal form is not emptied
    expect(normalizeBusinessName('LLC')).toBe('llc');
  });
});

describe('batch status', () => {
  const batch = (completedAt: Date | null) => ({ completedAt }) as IngestBatch;
  const doc = (status: DocumentRecord['status'], started = false) =>
    ({ status, processingStartedAt: started ? new Date() : null }) as DocumentRecord;

  it('is pending until a document has started, processing while open, completed once closed', () => {
    expect(batchStatusOf(batch(null), [doc('uploaded'), doc('uploaded')])).toBe('pending');
    expect(batchStatusOf(batch(null), [doc('uploaded'), doc('classifying', true)])).toBe('processing');
    expect(batchStatusOf(batch(null), [doc('completed', true), doc('uploaded')])).toBe('processing');
    // all documents terminal but not yet closed by the completion handler: still processing
    expect(batchStatusOf(batch(null), [doc('completed', true), doc('failed', true)])).toBe('processing');
    expect(batchStatusOf(batch(new Date()), [doc('completed', true), doc('failed', true)])).toBe('completed');
  });
});
