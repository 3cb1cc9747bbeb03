import { Document, DocumentStatus } from '../entities/document.entities';

/** Progress shown while a document is in a step (status view `progress_pct`). */
export const STEP_PROGRESS: Record<DocumentStatus, number> = {
  uploaded: 0,
  extracting_text: 15,
  running_ocr: 25,
  classifying: 45,
  parsing_with_llm: 60,
  computing_metrics: 85,
  completed: 100,
  failed: 100,
  cancelled: 100,
};

export const STEP_LABELS: Record<DocumentStatus, string> = {
  uploaded: 'Queued for processing',
  extracting_text: 'Extracting text',
  running_ocr: 'Running OCR on scanned pages',
  classifying: 'Classifying the document',
  parsing_with_llm: 'Parsing transactions',
  computing_metrics: 'Computing metrics and screening',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** One job per document attempt: a cancelled or reprocessed document's old job finds nothing to do. */
export const documentJobId = (doc: Pick<Document, 'id' | 'attempt'>) => `doc-${doc.id}-${doc.attempt}`;
