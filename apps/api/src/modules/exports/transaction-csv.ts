import { boolCell, csvLine, intCell, moneyCell, textCell } from './csv';

import type { TransactionExportRow } from '../pipeline/services/transactions.service';

/** A transaction row as the export query reads it (numeric columns may come back as strings). */
export type ExportRow = TransactionExportRow;

export interface CsvFormat {
  header: string;
  line(row: ExportRow, statement: string): string;
}

/**
 * Form A: deal and document CSV, exact columns and order (spec: Exports). Columns added later go at
 * the end (clients read by position): Revenue Class and Revenue Rule (docs/revenue.md).
 */
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
    'Revenue Class',
    'Revenue Rule',
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
      textCell(r.revenueClass),
      textCell(r.revenueRule),
    ]),
};

/** Form B: `/deals/{id}/transactions/csv`; revenue_class and revenue_rule appended after document_id. */
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
    'revenue_class',
    'revenue_rule',
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
      textCell(r.revenueClass),
      textCell(r.revenueRule),
    ]),
};
