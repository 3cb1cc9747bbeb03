import { boolCell, csvLine, intCell, moneyCell, textCell } from './csv';

import type { TransactionExportRow } from '../pipeline/services/transactions.service';

/** A transaction row as the export query reads it (numeric columns may come back as strings). */
export type ExportRow = TransactionExportRow;

export interface CsvFormat {
  header: string;
  line(row: ExportRow, statement: string): string;
}

/** Form A: deal and document CSV, exact columns and order (spec: Exports). */
export const FORM_A: CsvFormat = {
  header: csvLine([
    'Statement',
    'Date',
    'Description',
    'Amount',
    'Balance',
    'Type',
    'NSF Fee',
    'Overdraft Fee',
    'Large Deposit',
    'Large Strange',
    'Repeat Charge',
    'Suspicious',
    'Screening Bucket',
    'Flag Reason',
  ]),
  line: (r, statement) =>
    csvLine([
      textCell(statement),
      textCell(r.date),
      textCell(r.description),
      moneyCell(r.amount),
      moneyCell(r.balance),
      textCell(r.transactionType),
      boolCell(r.isNsfFee),
      boolCell(r.isOverdraftFee),
      boolCell(r.isLargeDeposit),
      boolCell(r.isLargeStrange),
      boolCell(r.isRepeatCharge),
      boolCell(r.isSuspicious),
      textCell(r.screeningBucket),
      textCell(r.flagReason),
    ]),
};

/** Form B: `/deals/{id}/transactions/csv`. */
export const FORM_B: CsvFormat = {
  header: csvLine([
    'date',
    'description',
    'amount',
    'balance',
    'transaction_type',
    'is_nsf_fee',
    'is_overdraft_fee',
    'screening_bucket',
    'flag_reason',
    'category',
    'document_id',
  ]),
  line: (r) =>
    csvLine([
      textCell(r.date),
      textCell(r.description),
      moneyCell(r.amount),
      moneyCell(r.balance),
      textCell(r.transactionType),
      boolCell(r.isNsfFee),
      boolCell(r.isOverdraftFee),
      textCell(r.screeningBucket),
      textCell(r.flagReason),
      textCell(r.category),
      intCell(r.documentId),
    ]),
};
