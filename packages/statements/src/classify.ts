import { DocumentType } from './types';

export interface Classification {
  documentType: DocumentType;
  confidence: number;
  scores: Record<DocumentType, number>;
}

const RULES: Record<Exclude<DocumentType, 'other'>, Array<[RegExp, number]>> = {
  bank_statement: [
    [/\b(beginning|opening|previous|starting) balance\b/i, 3],
    [/\b(ending|closing|new) balance\b/i, 3],
    [/\bstatement period\b|\bstatement (date|ending)\b/i, 2],
    [/\b(deposits|withdrawals|checks paid|debits|credits)\b/i, 2],
    [/\baccount (number|#|no)\b/i, 1.5],
    [/\b(checking|savings|money market)\b/i, 1.5],
    [/\bmember fdic\b|\bncua\b/i, 2],
    [/\bdaily (ending |ledger )?balance\b/i, 2],
    [/\b\d{1,2}\/\d{1,2}\b.*\d\.\d{2}\b/, 1],
    // a transaction table header: date, money columns, running balance (any order)
    [/\bdate\b.{0,160}\b(debit|credit|withdrawals?|deposits?|amount|money in|money out|paid in|paid out)s?\b.{0,120}\bbalance\b/i, 3],
    [/\b(money in|money out|paid in|paid out|balance brought forward|brought forward)\b/i, 1.5],
    // consecutive dated lines ending in money: a transaction listing even without any header words
    [
      /(^|\n)[ \t]*\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b[^\n]*\d\.\d{1,2}[ \t]*\n[ \t]*\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b[^\n]*\d\.\d{1,2}[ \t]*(\n|$)/,
      1.5,
    ],
  ],
  tax_return: [
    [/\bform\s*(1120|1120-?s|1065|1040|941|990)\b/i, 5],
    [/\binternal revenue service\b|\bdepartment of the treasury\b/i, 4],
    [/\bu\.?s\.? (income tax|return of partnership income|corporation income tax)\b/i, 4],
    [/\b(taxable income|adjusted gross income|schedule [a-z]\b|employer identification number|ordinary business income)\b/i, 2],
    [/\btax (year|return)\b/i, 2],
  ],
  profit_and_loss: [
    [/\bprofit\s*(and|&)\s*loss\b|\bp\s*&\s*l\b|\bincome statement\b|statement of operations/i, 5],
    [/\b(total income|gross profit|net income|net operating income|total expenses|cost of goods sold)\b/i, 2.5],
    [/\b(revenue|sales|operating expenses|payroll expenses?|rent expense)\b/i, 1],
    [/\baccrual basis\b|\bcash basis\b/i, 2],
  ],
};

/** Classifies a document from its text; a user hint wins but contradicting evidence lowers confidence. */
export function classifyText(text: string, hint?: DocumentType): Classification {
  const sample = text.slice(0, 200_000);
  const scores: Record<DocumentType, number> = { bank_statement: 0, tax_return: 0, profit_and_loss: 0, other: 0 };
  for (const [type, rules] of Object.entries(RULES) as Array<[Exclude<DocumentType, 'other'>, Array<[RegExp, number]>]>) {
    for (const [re, w] of rules) if (re.test(sample)) scores[type] += w;
  }
  const ranked = (Object.keys(scores) as DocumentType[]).filter((k) => k !== 'other').sort((a, b) => scores[b] - scores[a]);
  const top = ranked[0];
  const second = ranked[1];
  const total = scores[ranked[0]] + scores[ranked[1]] + scores[ranked[2]];
  let documentType: DocumentType = 'other';
  let confidence: number;
  if (scores[top] < 4) {
    confidence = total === 0 ? 0.5 : Math.max(0.3, 0.6 - scores[top] / 20);
  } else {
    documentType = top;
    const margin = (scores[top] - scores[second]) / Math.max(1, scores[top]);
    confidence = Math.min(0.99, 0.55 + 0.25 * Math.min(1, scores[top] / 12) + 0.2 * margin);
  }
  if (hint) {
    if (hint === documentType) confidence = Math.max(confidence, 0.95);
    else {
      const evidence = documentType === 'other' ? 0 : Math.min(1, scores[documentType] / 12);
      confidence = Math.max(0.2, 0.8 - 0.5 * evidence);
      documentType = hint;
    }
  }
  return { documentType, confidence: Math.round(confidence * 1000) / 1000, scores };
}
