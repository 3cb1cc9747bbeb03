import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import Groq from 'groq-sdk';
import { summaryFacts, templateSummary, ungroundedNumbers, type AiSummaryMeta, type SummaryFacts } from '@ledgerlens/underwriting';
import { AuthContext } from '../../../platform/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../../platform/config/config';
import { Database } from '../../../platform/database/database.service';
import { Scope } from '../../../platform/database/tenant';
import { ApiError } from '../../../platform/errors/api-error';
import { EventDispatcher } from '../../../platform/events/event-dispatcher';
import { DomainEvent, recordEvent } from '../../../platform/events/events';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { DealRepository } from '../repositories/deal.repository';
import { Deal } from '../entities/deal.entities';
import { Clock } from '../../../platform/clock/clock';
import { SummaryAcceptedDto } from '../dto/recommendation.dto';

export interface SummaryResult {
  text: string;
  source: 'llm' | 'template';
  model: string | null;
}

const MAX_SUMMARY_CHARS = 4000;

const SYSTEM_PROMPT = [
  'You are a senior underwriter at a merchant cash advance funder writing the narrative summary of a deal report for a colleague.',
  'If authenticity.risk_level is high, open with a warning that the documents show signs of editing.',
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
    private readonly deals: DealRepository,
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
    const facts = summaryFacts(
      { business_name: deal.businessName, industry: deal.industry, funding_amount_requested: deal.fundingAmountRequested },
      deal.report,
      deal.analysis,
    );
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
  requestSummary(tx: UnitOfWork, scope: Scope, dealId: number, actor: string | null): void {
    recordEvent(tx, scope, 'deal.summary_requested', { dealId, actor, data: { deal_id: dealId } });
  }

  async regenerate(auth: AuthContext, dealId: number): Promise<SummaryAcceptedDto> {
    const uow = this.db.unitOfWork(auth);
    const deal = await this.deals.getOr404(uow, dealId);
    if (deal.status !== 'ready') {
      throw ApiError.conflict(
        `Deal ${deal.id} is not ready (status: ${deal.status}): the AI summary is written once the deal report is ready`,
      );
    }
    await uow.transaction(async (tx) => this.requestSummary(tx, auth, deal.id, auth.actor));
    this.events.notify();
    return {
      status: 'accepted',
      success: true,
      message: `The AI summary of deal ${deal.id} is being regenerated; GET /v1/deals/${deal.id} shows it when done`,
      deal_id: deal.id,
    };
  }

  /** Idempotent per event: the event id is stored with the summary and a redelivery is skipped. */
  private async onSummaryRequested(event: DomainEvent): Promise<void> {
    if (event.dealId === null) return;
    const scope = { organizationId: event.organizationId, livemode: event.livemode };
    const uow = this.db.unitOfWork(scope);
    const deal = await this.deals.findById(uow, event.dealId);
    if (!deal || deal.status !== 'ready' || !deal.report) return;
    if (deal.report.ai_summary_meta?.event_id === event.id) return;
    const summary = await this.summarize(deal);
    const meta: AiSummaryMeta = {
      event_id: event.id,
      source: summary.source,
      model: summary.model,
      generated_at: this.clock.now().toISOString(),
    };
    await this.deals.writeSummary(uow, scope, deal.id, summary.text, meta);
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
