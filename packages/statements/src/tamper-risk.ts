/**
 * One risk per document from the metadata assessment (tamper.ts) and the content findings
 * (tamper-content.ts): the level is the strongest evidence, and every reason names it. docs/tamper.md.
 */
import type { TamperAssessment } from './tamper';
import type { RiskLevel, TamperFinding } from './types';

const RANK: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2 };

/** Reasons beyond this many are summed up in one line ("and N more ..."). */
const MAX_REASONS = 12;

export interface DocumentRisk {
  level: RiskLevel;
  reasons: string[];
}

export function combineRisk(meta: TamperAssessment, findings: TamperFinding[]): DocumentRisk {
  let level = meta.level;
  const raise = (l: RiskLevel) => {
    if (RANK[l] > RANK[level]) level = l;
  };
  // the metadata assessment already words the balance chain and the totals; content, structure, the
  // period and the round deposits are new
  const own = findings.filter((f) => f.kind !== 'balance_chain' && f.kind !== 'totals');
  for (const f of findings) raise(f.severity);
  // two independent kinds of evidence at medium (say a covered amount and an editor's metadata) make it high
  const kinds = new Set(own.map((f) => f.kind));
  if (RANK[meta.level] >= 1 && own.length) raise('high');
  if (kinds.size >= 2) raise('high');
  const reasons = [...meta.reasons];
  const ordered = [...own].sort((a, b) => RANK[b.severity] - RANK[a.severity]);
  for (const f of ordered.slice(0, MAX_REASONS)) reasons.push(f.message);
  if (ordered.length > MAX_REASONS) reasons.push(`and ${ordered.length - MAX_REASONS} more content findings`);
  return { level, reasons };
}
