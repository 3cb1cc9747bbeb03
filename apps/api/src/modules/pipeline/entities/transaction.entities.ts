import { Entity, Index, OptionalProps, PrimaryKey } from '@mikro-orm/core';
import { Bool, Int, Json, Money, Text, Timestamp } from '../../../platform/database/columns';
import { TenantScoped } from '../../../platform/database/tenant';

export const TRANSACTION_CATEGORIES = ['revenue', 'non_revenue', 'debt_service', 'operating_expense', 'transfer', 'other'] as const;

@TenantScoped()
@Entity({ tableName: 'transactions' })
@Index({ properties: ['documentId', 'position'] })
@Index({ properties: ['dealId', 'date'] })
export class Transaction {
  [OptionalProps]?:
    | 'balance'
    | 'screeningBucket'
    | 'flagReason'
    | 'correctionCount'
    | 'lastCorrectedAt'
    | 'correctedBy'
    | 'isNsfFee'
    | 'isOverdraftFee'
    | 'isLargeDeposit'
    | 'isLargeStrange'
    | 'isRepeatCharge'
    | 'isSuspicious'
    | 'source'
    | 'rowWarnings'
    | 'origin'
    | 'revenueClass'
    | 'revenueRule'
    | 'isCashDeposit'
    | 'revenueClassOverride';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() dealId: number;
  @Int() documentId: number;
  /** Order on the statement. */
  @Int() position: number;
  @Text({ length: 10 }) date: string;
  @Text() description: string;
  @Money() amount: number;
  @Money({ nullable: true }) balance: number | null = null;
  @Text({ length: 8 }) transactionType: 'credit' | 'debit';
  @Text({ length: 32 }) category: string;
  @Bool({ default: false }) isNsfFee: boolean = false;
  @Bool({ default: false }) isOverdraftFee: boolean = false;
  @Bool({ default: false }) isLargeDeposit: boolean = false;
  @Bool({ default: false }) isLargeStrange: boolean = false;
  @Bool({ default: false }) isRepeatCharge: boolean = false;
  @Bool({ default: false }) isSuspicious: boolean = false;
  @Text({ length: 64, nullable: true }) screeningBucket: string | null = null;
  @Text({ nullable: true }) flagReason: string | null = null;
  @Int({ default: 0 }) correctionCount: number = 0;
  @Timestamp({ nullable: true }) lastCorrectedAt: Date | null = null;
  @Text({ length: 64, nullable: true }) correctedBy: string | null = null;
  /** Where the row was read: 1-based page and the boxes [x0, y0, x1, y1] of its printed lines in PDF points (null: added by a person, or read before provenance was kept). */
  @Json({ nullable: true }) source: TransactionSource | null = null;
  /** Named problems with this row's own cells, as the reader found them. */
  @Json({ nullable: true }) rowWarnings: string[] | null = null;
  /** `read`: the reader found it; `added`: a person added a row the reader missed (it survives a new reading). */
  @Text({ length: 8 }) origin: TransactionOrigin = 'read';
  /** A deposit's revenue class as the deal's screening decided it (null: a debit, or not scored since). */
  @Text({ length: 32, nullable: true }) revenueClass: string | null = null;
  /** The rule that decided revenueClass. */
  @Text({ nullable: true }) revenueRule: string | null = null;
  @Bool({ default: false }) isCashDeposit: boolean = false;
  /** The revenue class a person set on this deposit (kept over the rules and across a new reading); null: none set. */
  @Text({ length: 32, nullable: true }) revenueClassOverride: string | null = null;
}

export type TransactionOrigin = 'read' | 'added';

export interface TransactionSource {
  page: number;
  boxes: Array<[number, number, number, number]>;
}

/**
 * Append-only audit trail: one row per changed field. It outlives the transaction row (a document
 * read again replaces its rows and applies the corrections again); it goes with its deal.
 */
@TenantScoped()
@Entity({ tableName: 'transaction_corrections' })
export class TransactionCorrection {
  [OptionalProps]?: 'correctedAt' | 'dealId' | 'documentId';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Int() @Index() transactionId: number;
  @Int({ nullable: true }) dealId: number | null = null;
  @Int({ nullable: true }) @Index() documentId: number | null = null;
  @Text({ length: 32 }) field: string;
  @Text({ nullable: true }) oldValue: string | null;
  @Text({ nullable: true }) newValue: string | null;
  @Text({ length: 500 }) correctionReason: string;
  @Text({ length: 64 }) correctedBy: string;
  @Timestamp() correctedAt: Date = new Date();
}
