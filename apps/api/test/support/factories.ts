import { randomBytes } from 'node:crypto';
import type { StatementInput } from '@ledgerlens/underwriting';
import { Deal } from '../../src/modules/pipeline/entities/deal.entities';
import { Document } from '../../src/modules/pipeline/entities/document.entities';
import { Transaction } from '../../src/modules/pipeline/entities/transaction.entities';
import { Database } from '../../src/platform/database/database.service';
import { Scope, scopeFields } from '../../src/platform/database/tenant';
import { TestApp } from './harness';

/**
 * Small data factories for service-level tests: rows written straight to the database of a
 * running test app, in one organization and mode, with defaults a test overrides field by field.
 */
export class Factories {
  private constructor(
    private readonly app: TestApp,
    readonly scope: Scope,
  ) {}

  static async forNewOrg(app: TestApp, name = 'Factory Org'): Promise<Factories & { apiKey: string }> {
    const org = await app.newOrg(name);
    return Object.assign(new Factories(app, { organizationId: org.organization.id, livemode: true }), { apiKey: org.api_key });
  }

  private em() {
    return this.app.get(Database).forScope(this.scope);
  }

  async deal(fields: Partial<Deal> = {}): Promise<Deal> {
    const em = this.em();
    const deal = em.create(Deal, {
      ...scopeFields(this.scope),
      businessName: 'Factory Bakery LLC',
      fundingAmountRequested: 25000,
      ...fields,
    });
    await em.flush();
    return deal;
  }

  /** A document row (no stored file: for states the pipeline will not pick up again). */
  async document(deal: Pick<Deal, 'id'>, fields: Partial<Document> = {}): Promise<Document> {
    const em = this.em();
    const doc = em.create(Document, {
      ...scopeFields(this.scope),
      dealId: deal.id,
      filename: `doc-${randomBytes(3).toString('hex')}.pdf`,
      fileSize: 1000,
      mimeType: 'application/pdf',
      sha256: randomBytes(32).toString('hex'),
      storageKey: `factory/${randomBytes(8).toString('hex')}`,
      ...fields,
    });
    await em.flush();
    return doc;
  }

  /** A completed bank statement with its transactions, as the pipeline leaves it. */
  async statement(deal: Pick<Deal, 'id'>, st: StatementInput, fields: Partial<Document> = {}): Promise<Document> {
    const doc = await this.document(deal, {
      status: 'completed',
      documentType: 'bank_statement',
      bankName: st.bankName ?? null,
      accountNumberLast4: st.accountNumberLast4 ?? null,
      accountHolder: st.accountHolder ?? null,
      statementStartDate: st.periodStart,
      statementEndDate: st.periodEnd,
      openingBalance: st.openingBalance,
      closingBalance: st.closingBalance,
      pdfRiskLevel: 'low',
      reconciliation: { reconciled: true },
      transactionCount: st.transactions.length,
      ...fields,
    });
    const em = this.em();
    await em.insertMany(
      Transaction,
      st.transactions.map((t, position) => ({
        ...scopeFields(this.scope),
        dealId: deal.id,
        documentId: doc.id,
        position,
        date: t.date,
        description: t.description,
        amount: t.amount,
        balance: t.balance,
        transactionType: t.amount < 0 ? ('debit' as const) : ('credit' as const),
        category: 'other',
      })),
    );
    return doc;
  }
}
