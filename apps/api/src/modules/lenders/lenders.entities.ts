import { Entity, OptionalProps, PrimaryKey } from '@mikro-orm/core';
import type { LenderKind } from '@ledgerlens/underwriting';
import { Bool, Int, Json, Text, Timestamp } from '../../platform/database/columns';
import { TenantScoped } from '../../platform/database/tenant';

/**
 * An organization's own lender name (docs/lenders.md): a funder the shipped directory lacks, more
 * descriptor forms (aliases) of one it has, or a name marked as no lender (kind `not_lender`,
 * `bank`, ...). The deal analysis matches these before the directory, so they win.
 */
@TenantScoped()
@Entity({ tableName: 'lenders' })
export class OrgLender {
  [OptionalProps]?: 'aliases' | 'directoryId' | 'createdAt' | 'updatedAt';
  @PrimaryKey({ type: 'integer', autoincrement: true }) id: number;
  @Int() organizationId: number;
  @Bool() livemode: boolean;
  @Text({ length: 200 }) name: string;
  @Json() aliases: string[] = [];
  @Text({ length: 16 }) kind: LenderKind;
  /** the directory lender these names are more forms of (its id), or null: a lender of the organization's own */
  @Text({ length: 64, nullable: true }) directoryId: string | null = null;
  @Timestamp() createdAt: Date = new Date();
  @Timestamp() updatedAt: Date = new Date();
}

/** The entities of the lenders module, registered with the ORM by the composition root (entities.ts). */
export const LENDERS_ENTITIES = [OrgLender];
