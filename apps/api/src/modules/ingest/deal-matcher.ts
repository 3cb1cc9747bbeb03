import { Injectable } from '@nestjs/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Database } from '../../platform/database/database.service';
import { Scope, scopeFields } from '../../platform/database/tenant';
import { ApiError, ErrorCode, validationEntry } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { recordEvent } from '../../platform/events/events';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DealsService } from '../pipeline/services/deals.service';
import type { DealRecord } from '../pipeline/records';
import { MatchMethod } from './ingest.entities';

/**
 * Requested amount of a deal that ingest creates without `funding_amount_requested` (the
 * underwriting math needs an amount > 0); PATCH the deal to correct it. Documented in README.
 */
export const DEFAULT_INGEST_FUNDING = 25_000;

/** What identifies the deal of an ingest (both metadata forms reduce to this). */
export interface DealCriteria {
  dealId: number | null;
  externalReference: string | null;
  ein: string | null;
  businessName: string | null;
  fundingAmountRequested: number | null;
}

export interface DealMatch {
  deal: DealRecord;
  matched: boolean;
  method: MatchMethod;
}

/** Legal-form words dropped from the end of a name ("Acme Bakery, L.L.C." is "acme bakery"). */
const LEGAL_SUFFIXES = new Set([
  'llc',
  'inc',
  'incorporated',
  'corp',
  'corporation',
  'co',
  'company',
  'ltd',
  'limited',
  'lp',
  'llp',
  'pllc',
  'pc',
  'plc',
]);

/**
 * The business-name match key: accents, case, punctuation, `&`/`and`, a leading "the" and trailing
 * legal forms do not distinguish two names; the words and their order do.
 */
export function normalizeBusinessName(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[.']/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  // "& Co", "and Company": the joining word goes with the legal form
  while (words.length > 1 && (LEGAL_SUFFIXES.has(words[words.length - 1]) || (words[words.length - 1] === 'and' && words.length > 2)))
    words.pop();
  if (words.length > 1 && words[0] === 'the') words.shift();
  return words.join(' ');
}

/**
 * Finds the deal of an ingest, in the spec's order: `deal_id` (attach), external reference, EIN,
 * normalised business name; otherwise creates one (with `deal.created`). A deal that carries a
 * different external reference than the one given is another business's and never matches.
 */
@Injectable()
export class DealMatcher {
  constructor(
    private readonly deals: DealsService,
    private readonly db: Database,
    private readonly events: EventDispatcher,
  ) {}

  async resolve(scope: Scope & { actor: string }, criteria: DealCriteria): Promise<DealMatch> {
    if (criteria.dealId !== null) return this.attach(scope, criteria.dealId, criteria.externalReference);
    try {
      return await this.findOrCreate(scope, criteria);
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      // Another request created the deal with this reference meanwhile: it is now a match.
      const again = await this.find(this.db.unitOfWork(scope), criteria);
      if (again) return again;
      throw new ApiError(ErrorCode.DUPLICATE_RESOURCE, `A deal with external_reference "${criteria.externalReference}" already exists`);
    }
  }

  /** `deal_id`: that deal; an external reference naming another deal contradicts it (409). */
  private async attach(scope: Scope, dealId: number, externalReference: string | null): Promise<DealMatch> {
    const uow = this.db.unitOfWork(scope);
    const deal = await this.deals.findOr404(uow, dealId);
    if (externalReference !== null) {
      const holder = await this.deals.findByReference(uow, externalReference);
      if (holder && holder.id !== deal.id)
        throw new ApiError(
          ErrorCode.DUPLICATE_RESOURCE,
          `external_reference "${externalReference}" already belongs to deal ${holder.id}, not to deal ${deal.id}`,
        );
    }
    return { deal, matched: true, method: 'deal_id' };
  }

  private async findOrCreate(scope: Scope & { actor: string }, criteria: DealCriteria): Promise<DealMatch> {
    const result = await this.db.unitOfWork(scope).transaction(async (tx) => {
      const found = await this.find(tx, criteria);
      if (found) return found;
      if (!criteria.businessName) {
        throw ApiError.validation([
          validationEntry(
            'body',
            ['metadata', 'business_name'],
            `No deal has external_reference "${criteria.externalReference}": business_name is required to create one`,
            'value_error.missing',
          ),
        ]);
      }
      const now = new Date();
      const deal = this.deals.newDeal(tx, {
        ...scopeFields(scope),
        businessName: criteria.businessName,
        ein: criteria.ein,
        externalReference: criteria.externalReference,
        fundingAmountRequested: criteria.fundingAmountRequested ?? DEFAULT_INGEST_FUNDING,
        sourceType: 'api',
        createdAt: now,
        updatedAt: now,
      });
      await tx.flush();
      recordEvent(tx, scope, 'deal.created', {
        dealId: deal.id,
        actor: scope.actor,
        data: { deal_id: deal.id, business_name: deal.businessName },
      });
      return { deal, matched: false, method: 'created' as const };
    });
    if (!result.matched) this.events.notify();
    return result;
  }

  private async find(uow: UnitOfWork, c: DealCriteria): Promise<DealMatch | null> {
    if (c.externalReference !== null) {
      const deal = await this.deals.findByReference(uow, c.externalReference);
      if (deal) return { deal, matched: true, method: 'external_reference' };
    }
    // A deal with another external reference is a different business, whatever its EIN or name.
    const withoutReference = c.externalReference !== null;
    if (c.ein !== null) {
      const deal = await this.deals.findNewestByEin(uow, c.ein, withoutReference);
      if (deal) return { deal, matched: true, method: 'ein' };
    }
    if (c.businessName !== null) {
      const key = normalizeBusinessName(c.businessName);
      const first = key.split(' ')[0];
      if (!first) return null;
      const candidates = await this.deals.findNamesContaining(uow, first, withoutReference, 500);
      const hit = candidates.find((d) => normalizeBusinessName(d.businessName) === key);
      if (hit) return { deal: await this.deals.findOr404(uow, hit.id, { refresh: true }), matched: true, method: 'business_name' };
    }
    return null;
  }
}
