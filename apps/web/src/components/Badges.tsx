import { label, scoreTone } from '../format';

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{label(status)}</span>;
}

/** approve / review / decline (the recommendation) or approve / decline / funded (the decision). */
export function DecisionBadge({ decision, large }: { decision: string | null | undefined; large?: boolean }) {
  if (!decision) return <span className="muted">—</span>;
  return <span className={`badge decision-${decision}${large ? ' badge-large' : ''}`}>{label(decision)}</span>;
}

export function Score({ score, grade }: { score: number | null | undefined; grade?: string | null }) {
  if (score === null || score === undefined) return <span className="muted">—</span>;
  return (
    <span className={`score tone-${scoreTone(score)}`}>
      {Math.round(score)}
      {grade ? <span className="grade">{grade}</span> : null}
    </span>
  );
}
