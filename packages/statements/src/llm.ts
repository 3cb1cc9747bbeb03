import Groq from 'groq-sdk';
/** LLM statement parser (Groq, OpenAI-compatible chat completions) with strict JSON validation. */
import { reconcile } from './reconcile';
import { round2 } from './tokens';
import { LlmOptions, PageLayout, Reconciliation, StatementTransaction } from './types';
import type { BankStatementFields } from './bank-parser';

export interface LlmParseResult extends BankStatementFields {
  transactions: StatementTransaction[];
  model: string;
}

export const LLM_SYSTEM_PROMPT = `You extract data from US business bank statements. Reply with ONE JSON object only, no prose, matching:
{"bank_name": string|null, "account_holder": string|null, "account_number_last4": string|null, "account_type": string|null,
 "statement_period_start": "YYYY-MM-DD"|null, "statement_period_end": "YYYY-MM-DD"|null,
 "opening_balance": number|null, "closing_balance": number|null,
 "transactions": [{"date": "YYYY-MM-DD", "description": string, "amount": number, "balance": number|null}]}
Amounts are signed: deposits/credits positive, withdrawals/debits/checks/fees negative. Do not include summary totals or daily balance tables as transactions. Only list transactions printed in the given pages.`;

export class LlmOutputError extends Error {}

const isDate = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
const numOrNull = (v: unknown, field: string): number | null => {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new LlmOutputError(`${field} must be a number or null`);
  return v;
};
const strOrNull = (v: unknown, field: string): string | null => {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new LlmOutputError(`${field} must be a string or null`);
  return v.trim() || null;
};

/** Validates one chunk's JSON against the schema. Throws LlmOutputError. */
export function validateLlmJson(raw: string): BankStatementFields & { transactions: StatementTransaction[] } {
  let obj: any;
  try {
    obj = JSON.parse(raw.replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new LlmOutputError('response is not valid JSON');
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new LlmOutputError('response is not a JSON object');
  if (!Array.isArray(obj.transactions)) throw new LlmOutputError('transactions must be an array');
  const txs: StatementTransaction[] = obj.transactions.map((t: any, i: number) => {
    if (!t || typeof t !== 'object') throw new LlmOutputError(`transactions[${i}] is not an object`);
    if (!isDate(t.date)) throw new LlmOutputError(`transactions[${i}].date must be YYYY-MM-DD`);
    if (typeof t.description !== 'string') throw new LlmOutputError(`transactions[${i}].description must be a string`);
    const amount = numOrNull(t.amount, `transactions[${i}].amount`);
    if (amount === null) throw new LlmOutputError(`transactions[${i}].amount is required`);
    const balance = numOrNull(t.balance, `transactions[${i}].balance`);
    return {
      date: t.date,
      description: t.description.trim(),
      amount: round2(amount),
      balance: balance === null ? null : round2(balance),
      transactionType: amount >= 0 ? 'credit' : 'debit',
    };
  });
  const ps = obj.statement_period_start ?? null;
  const pe = obj.statement_period_end ?? null;
  if (ps !== null && !isDate(ps)) throw new LlmOutputError('statement_period_start must be YYYY-MM-DD or null');
  if (pe !== null && !isDate(pe)) throw new LlmOutputError('statement_period_end must be YYYY-MM-DD or null');
  const last4 = strOrNull(obj.account_number_last4, 'account_number_last4');
  return {
    bankName: strOrNull(obj.bank_name, 'bank_name'),
    accountHolder: strOrNull(obj.account_holder, 'account_holder'),
    accountNumberLast4: last4 ? last4.replace(/\D/g, '').slice(-4) || null : null,
    accountType: strOrNull(obj.account_type, 'account_type'),
    periodStart: ps,
    periodEnd: pe,
    openingBalance: numOrNull(obj.opening_balance, 'opening_balance'),
    closingBalance: numOrNull(obj.closing_balance, 'closing_balance'),
    transactions: txs,
  };
}

export function pageText(p: PageLayout): string {
  return p.lines.map((l) => l.text).join('\n');
}

/** Page text with words padded to their x position, so the LLM sees the table columns. */
export function pageTextWithColumns(p: PageLayout, ptPerChar = 4.5): string {
  return p.lines
    .map((l) => {
      let out = '';
      for (const w of l.words) {
        const col = Math.round(w.x0 / ptPerChar);
        out += out.length < col ? ' '.repeat(col - out.length) : out ? ' ' : '';
        out += w.text;
      }
      return out.trimEnd();
    })
    .join('\n');
}

/** Runs the LLM over page chunks and merges the chunks. Throws on transport or schema errors. */
export async function parseWithLlm(pages: PageLayout[], llm: LlmOptions, signal?: AbortSignal): Promise<LlmParseResult> {
  const client = new Groq({ apiKey: llm.apiKey, baseURL: llm.baseURL, maxRetries: 0, timeout: llm.timeoutMs ?? 60_000 });
  const per = Math.max(1, llm.pagesPerChunk ?? 4);
  const merged: LlmParseResult = {
    bankName: null,
    accountHolder: null,
    accountNumberLast4: null,
    accountType: null,
    periodStart: null,
    periodEnd: null,
    openingBalance: null,
    closingBalance: null,
    transactions: [],
    model: llm.model,
  };
  for (let i = 0; i < pages.length; i += per) {
    const chunk = pages.slice(i, i + per);
    const text = chunk.map((p) => `--- page ${p.index + 1} of ${pages.length} ---\n${pageTextWithColumns(p)}`).join('\n');
    const res = await client.chat.completions.create(
      {
        model: llm.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: LLM_SYSTEM_PROMPT },
          { role: 'user', content: text },
        ],
      },
      { signal },
    );
    const content = res.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new LlmOutputError('empty completion');
    const part = validateLlmJson(content);
    for (const k of [
      'bankName',
      'accountHolder',
      'accountNumberLast4',
      'accountType',
      'periodStart',
      'periodEnd',
      'openingBalance',
    ] as const) {
      if (merged[k] === null && part[k] !== null) (merged as any)[k] = part[k];
    }
    if (part.closingBalance !== null) merged.closingBalance = part.closingBalance;
    merged.transactions.push(...part.transactions);
  }
  return merged;
}

export function reconcileLlm(r: LlmParseResult): Reconciliation {
  return reconcile(r.openingBalance, r.closingBalance, r.transactions);
}
