import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import Groq from 'groq-sdk';
import type { DealAnalysis } from '@ledgerlens/underwriting';
import { AuthContext } from '../../platform/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../platform/config/config';
import { Database } from '../../platform/database/database.service';
import { Scope } from '../../platform/database/tenant';
import { ApiError, ErrorCode } from '../../platform/errors/api-error';
import { EventDispatcher } from '../../platform/events/event-dispatcher';
import { DomainEvent, recordEvent } from '../../platform/events/events';
import { EntityManager } from '@mikro-orm/postgresql';
import { Deal } from '../deals/deals.entities';
import { Clock } from './clock';
import { SummaryAcceptedDto } from './dto/recommendation.dto';

export interface SummaryResult {
  text: string;
  source: 'llm' | 'template';
  model: string | null;
}

/** The deal figures a summary may speak of: the prompt carries exactly this JSON. */
export interface SummaryFacts {
  business_name: string;
  industry: string | null;
  funding_amount_requested: number;
  coverage: Record<string, unknown> | null;
  revenue: Record<string, unknown> | null;
  balances: Record<string, unknown> | null;
  nsf_overdraft: Record<string, unknown> | null;
  screening: Record<string, unknown> | null;
  lender_positions: Record<string, unknown> | null;
  cash_flow: Record<string, unknown> | null;
  health: Record<string, unknown> | null;
  recommendation: Record<string, unknown> | null;
}

const MAX_SUMMARY_CHARS = 4000;

const SYSTEM_PROMPT = [
  'You are a senior underwriter at a merchant cash advance funder writing the narrative summary of a deal report for a colleague.',
  'Cover, in this order: revenue (deposits and revenue per month, trend), balances, NSF and overdraft history, screening risks, existing lender (MCA) positions, and the recommendation with its score, maximum advance and cash flow coverage ratio.',
  'Use ONLY the figures in the JSON the user sends. Do not invent, estimate, round differently or compute any new number, date, percentage or name; if a figure is null or missing, say it is not available.',
  'Write 120 to 220 words of plain prose (no markdown, no headings, no lists). Money is USD.',
  'Reply with a JSON object of the form {"summary": "<the narrative>"} and nothing else.',
].join(' ');

@Injectable()
export class SummaryService implements OnModuleInit {
  private readonly logger = new Logger('SummaryService');
  private readonly groq: Groq | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: Database,
    private readonly events: EventDispatcher,
    private readonly clock: Clock,
  ) {
    const { apiKey, baseUrl, timeoutMs } = config.groq;
    // No SDK retries: a failed or slow call falls back to the template at once.
    this.groq = apiKey ? new Groq({ apiKey, baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs }) : null;
  }

  onModuleInit(): void {
    this.events.subscribe('ai-summary', (event) => (event.type === 'deal.summary_requested' ? this.onSummaryRequested(event) : undefined));
  }

  /**
   * The narrative of a ready deal's report: the LLM when a Groq key is configured, else (and on
   * any LLM error, timeout or ungrounded answer) a deterministic template of the same content.
   * Never throws for LLM trouble. Call it outside a database transaction: it may wait for the LLM.
   */
  async summarize(deal: Deal): Promise<SummaryResult> {
    const facts = summaryFacts(deal);
    if (this.groq) {
      try {
        return { text: await this.llmSummary(this.groq, facts), source: 'llm', model: this.config.groq.model };
      } catch (err) {
        this.logger.warn(`AI summary for deal ${deal.id} fell back to the template: ${(err as Error).message}`);
      }
    }
    return { text: templateSummary(facts), source: 'template', model: null };
  }

  /** Records the request in the caller's unit of work; the subscriber regenerates after commit. */
  requestSummary(em: EntityManager, scope: Scope, dealId: number, actor: string | null): void {
    recordEvent(em, scope, 'deal.summary_requested', { dealId, actor, data: { deal_id: dealId } });
  }

  async regenerate(auth: AuthContext, dealId: number): Promise<SummaryAcceptedDto> {
    const em = this.db.forScope(auth);
    const deal = await em.findOne(Deal, { id: dealId });
    if (!deal) throw ApiError.notFound('Deal', ErrorCode.DEAL_NOT_FOUND);
    if (deal.status !== 'ready') {
      throw ApiError.conflict(`Deal ${deal.id} is not ready (status: ${deal.status}): the AI summary is written once the deal report is ready`);
    }
    await em.transactional(async (tx) => this.requestSummary(tx, auth, deal.id, auth.actor));
    this.events.notify();
    return { status: 'accepted', success: true, message: `The AI summary of deal ${deal.id} is being regenerated; GET /v1/deals/${deal.id} shows it when done`, deal_id: deal.id };
  }

  /** Idempotent per event: the event id is stored with the summary and a redelivery is skipped. */
  private async onSummaryRequested(event: DomainEvent): Promise<void> {
    if (event.dealId === null) return;
    const em = this.db.forScope({ organizationId: event.organizationId, livemode: event.livemode });
    const deal = await em.findOne(Deal, { id: event.dealId });
    if (!deal || deal.status !== 'ready' || !deal.report) return;
    if ((deal.report.ai_summary_meta as { event_id?: string } | undefined)?.event_id === event.id) return;
    const summary = await this.summarize(deal);
    const meta = { event_id: event.id, source: summary.source, model: summary.model, generated_at: this.clock.now().toISOString() };
    // Only the two keys change, so a report written meanwhile keeps its other sections.
    await em.execute(
      `update "deals" set "report" = jsonb_set(jsonb_set("report", '{ai_summary}', ?::jsonb), '{ai_summary_meta}', ?::jsonb)
       where "id" = ? and "organization_id" = ? and "livemode" = ? and "status" = 'ready' and "report" is not null
         and coalesce("report" #>> '{ai_summary_meta,event_id}', '') <> ?`,
      [JSON.stringify(summary.text), JSON.stringify(meta), deal.id, event.organizationId, event.livemode, event.id],
      'run',
    );
  }

  private async llmSummary(groq: Groq, facts: SummaryFacts): Promise<string> {
    const { model, maxTokens } = this.config.groq;
    const completion = await groq.chat.completions.create({
      model,
      max_tokens: maxTokens,
      temperature: 0.2,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: `Deal report figures (JSON):\n${JSON.stringify(facts)}` },
      ],
    });
    const content = completion.choices[0]?.message?.content;
    if (!content) throw new Error('empty completion');
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      throw new Error('the completion is not JSON');
    }
    const summary = (parsed as { summary?: unknown } | null)?.summary;
    if (typeof summary !== 'string' || !summary.trim()) throw new Error('the completion has no "summary" string');
    const text = summary.trim();
    if (text.length > MAX_SUMMARY_CHARS) throw new Error(`the summary is longer than ${MAX_SUMMARY_CHARS} characters`);
    const invented = ungroundedNumbers(text, facts);
    if (invented.length) throw new Error(`the summary cites figures that are not in the report: ${invented.slice(0, 5).join(', ')}`);
    return text;
  }
}

const obj = (x: unknown): Record<string, unknown> | null => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null);
const pick = (source: Record<string, unknown> | null, keys: string[]): Record<string, unknown> | null =>
  source ? Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]])) : null;

/** The figures of the report and analysis that the narrative covers. */
export function summaryFacts(deal: Deal): SummaryFacts {
  const report = deal.report ?? {};
  const a = (deal.analysis ?? null) as Partial<DealAnalysis> | null;
  const financials = obj(a?.financials) ?? obj(report.financials);
  const positions = a?.lender_positions;
  const screening = obj(a?.screening) ?? obj(report.screening);
  const buckets = obj(screening?.buckets);
  return {
    business_name: deal.businessName,
    industry: deal.industry,
    funding_amount_requested: deal.fundingAmountRequested,
    coverage: pick(obj(a?.coverage) ?? obj(report.coverage), ['months_covered', 'days_covered', 'statement_count', 'period_start', 'period_end']),
    revenue: financials
      ? {
          ...pick(financials, ['avg_monthly_deposits', 'avg_monthly_revenue', 'total_deposits', 'total_withdrawals', 'total_revenue', 'deposit_frequency_per_month']),
          monthly: (a?.monthly ?? []).slice(-12).map((m) => ({ month: m.month, deposits: m.deposits, revenue: m.revenue })),
        }
      : null,
    balances: pick(financials, ['avg_daily_balance', 'ending_balance', 'min_daily_balance', 'negative_balance_days', 'low_balance_days', 'low_balance_threshold']),
    nsf_overdraft: pick(obj(a?.nsf_overdraft) ?? obj(report.nsf_overdraft), ['total_nsf_fees', 'total_overdraft_fees', 'nsf_months', 'overdraft_months', 'nsf_fee_amount', 'overdraft_fee_amount']),
    screening: screening
      ? {
          ...pick(screening, ['total_flags', 'transaction_count']),
          buckets: buckets ? Object.fromEntries(Object.entries(buckets).filter(([, n]) => typeof n === 'number' && n > 0)) : {},
        }
      : null,
    lender_positions: positions
      ? {
          position_count: positions.position_count,
          active_count: positions.active_count,
          stacking_count: positions.stacking_count,
          estimated_monthly_total: positions.estimated_monthly_total,
          positions: positions.positions.slice(0, 5).map((p) => ({
            counterparty: p.counterparty,
            frequency: p.frequency,
            payment_amount: p.payment_amount,
            estimated_monthly_total: p.estimated_monthly_total,
            is_active: p.is_active,
          })),
        }
      : null,
    cash_flow: pick(obj(a?.cash_flow), ['cfcr', 'cash_flow_available', 'existing_monthly_debt_service', 'proposed_monthly_payment']),
    health: pick(obj(a?.health) ?? obj(report.health), ['score', 'grade']),
    recommendation: pick(obj(report.recommendation), ['decision', 'total_score', 'max_advance', 'cfcr', 'ruleset_name', 'grade']),
  };
}

const usd = (n: unknown) =>
  typeof n === 'number' ? `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}` : 'not available';
const num = (n: unknown) => (typeof n === 'number' ? String(n) : 'not available');
const plural = (n: unknown, word: string) => `${num(n)} ${word}${n === 1 ? '' : 's'}`;

/** Deterministic narrative of the same content as the LLM prompt. */
export function templateSummary(f: SummaryFacts): string {
  const parts: string[] = [];
  const c = f.coverage;
  parts.push(
    `${f.business_name}${f.industry ? ` (${f.industry})` : ''} requests ${usd(f.funding_amount_requested)}.` +
      (c ? ` The report covers ${plural(c.months_covered, 'month')} (${plural(c.statement_count, 'statement')}${c.period_start ? `, ${c.period_start} to ${c.period_end}` : ''}).` : ''),
  );
  const r = f.revenue;
  if (r) {
    parts.push(
      `Deposits average ${usd(r.avg_monthly_deposits)} a month, of which ${usd(r.avg_monthly_revenue)} is revenue; total deposits ${usd(r.total_deposits)} against ${usd(r.total_withdrawals)} of withdrawals, with ${num(r.deposit_frequency_per_month)} deposits a month.`,
    );
  }
  const b = f.balances;
  if (b) {
    parts.push(
      `The average daily balance is ${usd(b.avg_daily_balance)} and the ending balance ${usd(b.ending_balance)}; the balance was negative on ${plural(b.negative_balance_days, 'day')} and below ${usd(b.low_balance_threshold)} on ${plural(b.low_balance_days, 'day')}.`,
    );
  }
  const n = f.nsf_overdraft;
  if (n) {
    parts.push(
      n.total_nsf_fees === 0 && n.total_overdraft_fees === 0
        ? 'There are no NSF or overdraft fees.'
        : `There are ${plural(n.total_nsf_fees, 'NSF fee')} and ${plural(n.total_overdraft_fees, 'overdraft fee')}, with NSF fees in ${plural(n.nsf_months, 'month')}.`,
    );
  }
  const s = f.screening;
  if (s) {
    const buckets = Object.entries((s.buckets as Record<string, number>) ?? {})
      .sort((x, y) => y[1] - x[1])
      .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v}`);
    parts.push(
      s.total_flags === 0
        ? 'Screening flagged no transactions.'
        : `Screening flagged ${num(s.total_flags)} of ${num(s.transaction_count)} transactions${buckets.length ? ` (${buckets.join(', ')})` : ''}.`,
    );
  }
  const p = f.lender_positions;
  if (p) {
    const list = (p.positions as { counterparty: string; frequency: string; payment_amount: number }[]).map(
      (x) => `${x.counterparty} (${x.frequency}, ${usd(x.payment_amount)})`,
    );
    parts.push(
      p.position_count === 0
        ? 'No existing lender positions were detected.'
        : `${plural(p.position_count, 'lender position')} detected, ${num(p.active_count)} active, about ${usd(p.estimated_monthly_total)} a month in total: ${list.join('; ')}.`,
    );
  }
  if (f.health) parts.push(`The health score is ${num(f.health.score)} (grade ${f.health.grade ?? 'not available'}).`);
  const rec = f.recommendation;
  if (rec) {
    parts.push(
      `Recommendation under the ${rec.ruleset_name} ruleset: ${String(rec.decision).toUpperCase()} with a total score of ${num(rec.total_score)}` +
        (rec.max_advance !== null && rec.max_advance !== undefined ? `, a maximum advance of ${usd(rec.max_advance)}` : '') +
        ` and a cash flow coverage ratio of ${num(rec.cfcr)}.`,
    );
  } else if (f.cash_flow) {
    parts.push(`The cash flow coverage ratio is ${num(f.cash_flow.cfcr)}.`);
  }
  return parts.join(' ');
}

/**
 * Numbers in the text that match no figure of the facts (within rounding; ratios may appear as
 * percentages, large amounts as "k"/"M"). Small counts (0-31) pass: ordinal words, days, months.
 */
export function ungroundedNumbers(text: string, facts: SummaryFacts): string[] {
  const known: number[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'number' && Number.isFinite(v)) known.push(v, v * 100);
    else if (typeof v === 'string') for (const m of v.match(/\d+(?:\.\d+)?/g) ?? []) known.push(Number(m));
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(facts);
  const close = (x: number) => known.some((k) => Math.abs(x - k) <= Math.max(0.011, Math.abs(k) * 0.01));
  const out: string[] = [];
  for (const m of text.matchAll(/(\d[\d,]*(?:\.\d+)?)\s*([kKmM])?\b/g)) {
    const x = Number(m[1].replace(/,/g, ''));
    if (!Number.isFinite(x) || x <= 31) continue;
    const scale = m[2] ? (/k/i.test(m[2]) ? 1e3 : 1e6) : 1;
    if (!close(x * scale) && !close(x)) out.push(m[0].trim());
  }
  return out;
}
