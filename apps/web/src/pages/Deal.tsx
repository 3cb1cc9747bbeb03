import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import type { Download } from '@ledgerlens/sdk';
import { can, keys, ll, queryClient, type Decision, type DealDetail } from '../api';
import { DecisionBadge, Score, StatusBadge } from '../components/Badges';
import { Crumbs } from '../components/Crumbs';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TableWrap } from '../components/TableWrap';
import { useSession } from '../components/Root';
import { SharePanel, TimelinePanel } from './DealActivity';
import { AuthenticityPanel, ChartsPanel, ConsistencyPanel, RelatedDealsPanel, TrueRevenuePanel } from './DealFindings';
import { AccountsPanels } from './DealAccounts';
import { day, label, month, num, period, usd, usdCents, when } from '../format';
import { Upload } from './Upload';
import { useUsable } from '../perf';

const route = getRouteApi('/deals/$dealId');

export function DealPage() {
  const dealId = Number(route.useParams().dealId);
  const deal = useQuery({
    queryKey: keys.deal(dealId),
    queryFn: ({ signal }) => ll.deals.get(dealId, { signal }),
    enabled: Number.isInteger(dealId),
  });
  const session = useSession().data;
  // usable: the recommendation, the figures and the tables drawn (the side panels fetch their own)
  const root = useRef<HTMLElement>(null);
  useUsable('deal-usable', deal.isSuccess, dealId, root);
  if (deal.isPending) return <p className="splash">Loading…</p>;
  if (deal.isError) return <ErrorNotice error={deal.error} />;
  const d = deal.data;
  const writer = can(session, 'write');
  return (
    <article aria-labelledby="deal-title" className="deal" ref={root}>
      <Crumbs trail={[<span key="deal">Deal {d.id}</span>]} />
      <div className="page-head">
        <h1 id="deal-title">{d.business_name}</h1>
        <StatusBadge status={d.status} />
        <div className="spacer" />
        <Downloads deal={d} />
      </div>
      <p className="facts">
        <span>Requested {usd(d.funding_amount_requested)}</span>
        {d.owner_name ? <span>Owner {d.owner_name}</span> : null}
        {d.industry ? <span>{d.industry}</span> : null}
        <span>
          {d.document_count} statement{d.document_count === 1 ? '' : 's'}
        </span>
        <span>Updated {when(d.updated_at)}</span>
      </p>
      <div className="deal-grid">
        <div className="deal-main">
          <RecommendationPanel deal={d} writer={writer} />
          <StatementsPanel deal={d} />
          {d.health && <HealthPanel deal={d} />}
          {d.financials && <FinancialsPanel deal={d} />}
          <ChartsPanel deal={d} />
          {d.monthly.length > 0 && <MonthlyPanel deal={d} />}
          <TrueRevenuePanel deal={d} />
          <PositionsPanel deal={d} />
          <AccountsPanels deal={d} />
          <NsfPanel deal={d} />
          <AuthenticityPanel deal={d} />
          <ConsistencyPanel deal={d} />
          <RelatedDealsPanel deal={d} />
        </div>
        <aside className="deal-side">
          {writer ? (
            <Upload dealId={d.id} />
          ) : (
            <p className="panel muted">Your role reads deals; uploading and deciding are for underwriters.</p>
          )}
          <TimelinePanel dealId={d.id} writer={writer} />
          {writer ? <SharePanel dealId={d.id} /> : null}
        </aside>
      </div>
    </article>
  );
}

function RecommendationPanel({ deal, writer }: { deal: DealDetail; writer: boolean }) {
  const rec = deal.recommendation;
  const [confirming, setConfirming] = useState<Decision | null>(null);
  const decide = useMutation({
    mutationFn: ({ decision, reason, offer }: DecisionInput) => ll.deals.decide(deal.id, decision, { reason, offer }),
    onSuccess: (result) => {
      setConfirming(null);
      queryClient.setQueryData<DealDetail>(keys.deal(deal.id), (prev) =>
        prev
          ? {
              ...prev,
              decision: result.decision,
              decided_at: result.decided_at,
              decision_reason: result.reason,
              decision_offer: result.offer,
            }
          : prev,
      );
      void queryClient.invalidateQueries({ queryKey: ['deals'] });
      void queryClient.invalidateQueries({ queryKey: ['timeline', deal.id] });
    },
  });
  return (
    <section className="panel recommendation" aria-labelledby="rec-title">
      <h2 id="rec-title">Recommendation</h2>
      {!rec ? (
        <p className="muted" data-testid="no-recommendation">
          {deal.status === 'processing'
            ? 'Reading the statements… the report appears here when they are done.'
            : deal.document_count === 0
              ? 'Add bank statements to get a recommendation.'
              : 'No recommendation yet.'}
        </p>
      ) : (
        <div className="rec" data-testid="recommendation">
          <div className="rec-head">
            <DecisionBadge decision={rec.decision} large />
            <dl className="kv">
              <div>
                <dt>Score</dt>
                <dd>
                  <Score score={rec.total_score} grade={rec.grade} />
                </dd>
              </div>
              <div>
                <dt>Max advance</dt>
                <dd>{usd(rec.max_advance)}</dd>
              </div>
              <div>
                <dt>Cash-flow coverage</dt>
                <dd>{rec.cfcr.toFixed(2)}×</dd>
              </div>
              <div>
                <dt>Ruleset</dt>
                <dd>{rec.ruleset_name}</dd>
              </div>
            </dl>
          </div>
          {rec.reasons.length > 0 && (
            <ul className="reasons" aria-label="Reasons">
              {rec.reasons.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          )}
          {deal.review && deal.review.needs_review_count > 0 && (
            <p className="notice notice-warn" role="note">
              {deal.review.needs_review_count} statement{deal.review.needs_review_count === 1 ? ' needs' : 's need'} review before relying
              on these figures.
            </p>
          )}
        </div>
      )}
      <div className="decision">
        <span>
          Decision: <DecisionBadge decision={deal.decision} />
          {deal.decided_at ? <span className="muted"> {when(deal.decided_at)}</span> : null}
          {deal.decision_offer ? (
            <span className="decision-offer" data-testid="offer">
              {' '}
              Offer {usd(deal.decision_offer.amount)} at {deal.decision_offer.factor_rate} (payback{' '}
              {usd(deal.decision_offer.payback_amount)}), {deal.decision_offer.term_months} months, {deal.decision_offer.holdback_percent}%
              holdback
            </span>
          ) : null}
          {deal.decision_reason ? <span className="muted decision-reason">: {deal.decision_reason}</span> : null}
        </span>
        {writer && (rec || deal.decision) && (
          <div className="actions">
            {(['approve', 'decline', 'funded'] as const).map((d) => (
              <button
                key={d}
                type="button"
                className={d === 'decline' ? 'danger' : d === 'approve' ? 'primary' : undefined}
                disabled={deal.decision === d}
                onClick={() => setConfirming(d)}
              >
                {d === 'funded' ? 'Mark funded' : label(d)}
              </button>
            ))}
          </div>
        )}
      </div>
      {decide.isError && !confirming && <ErrorNotice error={decide.error} action="record the decision" />}
      <Dialog open={confirming !== null} onClose={() => setConfirming(null)} title="Confirm the decision">
        {confirming ? (
          <DecisionForm
            key={confirming}
            decision={confirming}
            deal={deal}
            pending={decide.isPending}
            error={decide.isError ? decide.error : null}
            onCancel={() => setConfirming(null)}
            onConfirm={(input) => decide.mutate(input)}
          />
        ) : null}
      </Dialog>
    </section>
  );
}

interface DecisionInput {
  decision: Decision;
  reason?: string;
  offer?: { amount: number; factor_rate: number; term_months: number; holdback_percent: number };
}

/**
 * What a decision records: a decline its reason (required), an approval its offer (advance, factor
 * rate, term, holdback; the advance starts at the recommendation's maximum), funded an optional note.
 */
function DecisionForm({
  decision,
  deal,
  pending,
  error,
  onCancel,
  onConfirm,
}: {
  decision: Decision;
  deal: DealDetail;
  pending: boolean;
  error: unknown;
  onCancel: () => void;
  onConfirm: (input: DecisionInput) => void;
}) {
  const rec = deal.recommendation;
  const start = deal.decision_offer;
  const [reason, setReason] = useState('');
  const [amount, setAmount] = useState(String(Math.round(start?.amount ?? rec?.max_advance ?? deal.funding_amount_requested)));
  const [factor, setFactor] = useState(String(start?.factor_rate ?? 1.35));
  const [term, setTerm] = useState(String(start?.term_months ?? 6));
  const [holdback, setHoldback] = useState(String(start?.holdback_percent ?? 10));
  const offer = decision === 'approve';
  const numbers = [Number(amount), Number(factor), Number(term), Number(holdback)];
  const offerValid =
    numbers.every((n) => Number.isFinite(n) && n > 0) && Number(factor) >= 1 && Number(factor) <= 3 && Number(holdback) <= 100;
  const valid = (decision !== 'decline' || reason.trim() !== '') && (!offer || offerValid);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onConfirm({
      decision,
      reason: reason.trim() || undefined,
      offer: offer ? { amount: numbers[0], factor_rate: numbers[1], term_months: numbers[2], holdback_percent: numbers[3] } : undefined,
    });
  };
  return (
    <form onSubmit={submit} aria-label="Decision">
      <p>
        Record <strong>{label(decision)}</strong> for <strong>{deal.business_name}</strong>
        {rec ? ` (recommended: ${rec.decision})` : ''}? It is kept on the deal and its timeline, and sent to your webhooks and CRM.
      </p>
      {offer ? (
        <fieldset className="offer">
          <legend>Offer</legend>
          <label>
            Advance (USD)
            <input inputMode="decimal" required value={amount} onChange={(e) => setAmount(e.target.value)} />
          </label>
          <label>
            Factor rate
            <input inputMode="decimal" required value={factor} onChange={(e) => setFactor(e.target.value)} />
          </label>
          <label>
            Term (months)
            <input inputMode="decimal" required value={term} onChange={(e) => setTerm(e.target.value)} />
          </label>
          <label>
            Holdback (%)
            <input inputMode="decimal" required value={holdback} onChange={(e) => setHoldback(e.target.value)} />
          </label>
          {offerValid ? <p className="muted small">Payback {usd(Math.round(numbers[0] * numbers[1] * 100) / 100)}</p> : null}
        </fieldset>
      ) : null}
      <label className="block">
        {decision === 'decline' ? 'Reason (required)' : 'Note (optional)'}
        <textarea rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      {error ? <ErrorNotice error={error} /> : null}
      <div className="actions">
        <button type="button" className="ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className={decision === 'decline' ? 'danger' : 'primary'} disabled={!valid || pending}>
          Confirm {label(decision).toLowerCase()}
        </button>
      </div>
    </form>
  );
}

const FACTORS: [keyof NonNullable<DealDetail['health']>['factors'], string][] = [
  ['revenue', 'Revenue'],
  ['revenue_trend', 'Revenue trend'],
  ['balance_health', 'Balances'],
  ['deposit_frequency', 'Deposit frequency'],
  ['nsf_overdraft', 'NSF / overdraft'],
  ['debt_service', 'Debt service'],
];

function HealthPanel({ deal }: { deal: DealDetail }) {
  const health = deal.health!;
  return (
    <section className="panel" aria-labelledby="health-title">
      <h2 id="health-title">
        Health score <Score score={health.score} grade={health.grade} />
      </h2>
      <ul className="factors">
        {FACTORS.map(([key, name]) => {
          const value = health.factors[key];
          return (
            <li key={key}>
              <span>{name}</span>
              <meter min={0} max={100} low={40} high={70} optimum={100} value={value} aria-label={`${name}: ${Math.round(value)} of 100`} />
              <span className="num">{Math.round(value)}</span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function FinancialsPanel({ deal }: { deal: DealDetail }) {
  const f = deal.financials!;
  const rows: [string, string][] = [
    ['Avg monthly revenue', usd(f.avg_monthly_revenue)],
    ['Avg monthly deposits', usd(f.avg_monthly_deposits)],
    ['Avg daily balance', usd(f.avg_daily_balance)],
    ['Total revenue', usd(f.total_revenue)],
    ['Total deposits', usd(f.total_deposits)],
    ['Total withdrawals', usd(f.total_withdrawals)],
    ['Net cash flow', usd(f.net_cash_flow)],
    ['Ending balance', usd(f.ending_balance)],
    ['Min / max daily balance', `${usd(f.min_daily_balance)} / ${usd(f.max_daily_balance)}`],
    ['Negative balance days', num(f.negative_balance_days)],
    ['Deposits per month', num(f.deposit_frequency_per_month)],
    ['Debt service', usd(f.total_debt_service)],
  ];
  return (
    <section className="panel" aria-labelledby="fin-title">
      <h2 id="fin-title">Financials</h2>
      <dl className="grid-kv">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function MonthlyPanel({ deal }: { deal: DealDetail }) {
  return (
    <section className="panel" aria-labelledby="monthly-title">
      <h2 id="monthly-title">Monthly</h2>
      <TableWrap label="Monthly">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col" className="num">
                Revenue
              </th>
              <th scope="col" className="num">
                Deposits
              </th>
              <th scope="col" className="num">
                Withdrawals
              </th>
              <th scope="col" className="num">
                Avg balance
              </th>
              <th scope="col" className="num">
                Ending balance
              </th>
              <th scope="col" className="num">
                NSF
              </th>
              <th scope="col" className="num">
                Days
              </th>
            </tr>
          </thead>
          <tbody>
            {deal.monthly.map((m) => (
              <tr key={m.month}>
                <th scope="row" className="nowrap">
                  {month(m.month)}
                </th>
                <td className="num">{usd(m.revenue)}</td>
                <td className="num">{usd(m.deposits)}</td>
                <td className="num">{usd(m.withdrawals)}</td>
                <td className="num">{usd(m.avg_daily_balance)}</td>
                <td className="num">{usd(m.ending_balance)}</td>
                <td className={`num${m.nsf_count > 0 ? ' flagged' : ''}`}>{m.nsf_count}</td>
                <td className="num">{m.days_covered}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

function PositionsPanel({ deal }: { deal: DealDetail }) {
  const lp = deal.lender_positions;
  if (!lp) return null;
  return (
    <section className="panel" aria-labelledby="positions-title">
      <h2 id="positions-title">
        Lender positions <span className="muted count">{lp.active_count} active</span>
      </h2>
      {lp.positions.length === 0 ? (
        <p className="muted">No existing lender payments found.</p>
      ) : (
        <TableWrap label="Lender positions">
          <table className="dense">
            <thead>
              <tr>
                <th scope="col">Lender</th>
                <th scope="col">Frequency</th>
                <th scope="col" className="num">
                  Payment
                </th>
                <th scope="col" className="num">
                  Per month
                </th>
                <th scope="col" className="num">
                  Funded / est. left
                </th>
                <th scope="col">Seen</th>
                <th scope="col">Active</th>
              </tr>
            </thead>
            <tbody>
              {lp.positions.map((p) => (
                <tr key={`${p.counterparty}-${p.first_seen}`}>
                  <th scope="row">
                    {p.lender_name ?? p.counterparty}
                    {p.start_reason && p.start_reason !== 'new' ? <span className="muted"> ({p.start_reason})</span> : null}
                  </th>
                  <td>{label(p.frequency)}</td>
                  <td className="num">{usdCents(p.payment_amount)}</td>
                  <td className="num">{usd(p.estimated_monthly_total)}</td>
                  <td className="num">
                    {p.funding_amount != null ? `${usd(p.funding_amount)} / ${usd(p.estimated_remaining_balance ?? 0)}` : '-'}
                  </td>
                  <td className="nowrap">{period(p.first_seen, p.last_seen)}</td>
                  <td>{p.is_active ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function NsfPanel({ deal }: { deal: DealDetail }) {
  if (!deal.nsf_overdraft && deal.nsf_events.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="nsf-title">
      <h2 id="nsf-title">
        NSF and overdraft <span className="muted count">{deal.nsf_events.length} events</span>
      </h2>
      {deal.nsf_events.length === 0 ? (
        <p className="muted">None in these statements.</p>
      ) : (
        <ul className="events">
          {deal.nsf_events.map((e, i) => (
            <li key={`${e.date}-${i}`}>
              <span className="nowrap">{day(e.date)}</span>
              <span className={`badge decision-decline`}>{e.type.toUpperCase()}</span>
              <span className="desc">{e.description}</span>
              <span className="num">{usdCents(e.amount)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function StatementsPanel({ deal }: { deal: DealDetail }) {
  if (deal.statements.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="statements-title">
      <h2 id="statements-title">Per statement</h2>
      <TableWrap label="Per statement">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Period</th>
              <th scope="col" className="num">
                Rows
              </th>
              <th scope="col">Checks</th>
            </tr>
          </thead>
          <tbody>
            {deal.statements.map((s) => (
              <tr key={s.document_id}>
                <th scope="row">
                  <Link
                    className="file-name"
                    to="/deals/$dealId/documents/$documentId"
                    params={{ dealId: String(deal.id), documentId: String(s.document_id) }}
                  >
                    {s.filename}
                  </Link>
                  <span className="muted sub">
                    {s.bank_name ?? 'Unknown bank'}
                    {s.account_number_last4 ? ` ••${s.account_number_last4}` : ''}
                  </span>
                </th>
                <td className="nowrap">{period(s.period_start, s.period_end)}</td>
                <td className="num">{s.transaction_count}</td>
                <td>
                  <span className="checks">
                    <span className={`badge ${s.reconciled ? 'decision-approve' : s.reconciled === false ? 'decision-decline' : ''}`}>
                      {s.reconciled ? 'Reconciled' : s.reconciled === false ? 'Does not add up' : 'Unchecked'}
                    </span>
                    <span className={`badge risk-${s.risk_level}`}>Tampering risk {s.risk_level}</span>
                    {s.stale ? (
                      <span className="badge severity-warning" title="Older than the ruleset's window: left out of every figure">
                        Stale: left out
                      </span>
                    ) : null}
                    {!s.included && !s.stale ? (
                      <span className="badge severity-warning" title="In another currency than the deal's: left out of every figure">
                        {s.currency ? `${s.currency}: left out` : 'Currency unknown: left out'}
                      </span>
                    ) : null}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

/** The report and exports, fetched through the SDK (the session cookie) and saved as files. */
function Downloads({ deal }: { deal: DealDetail }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const ready = deal.status === 'ready' || deal.status === 'under_review';
  const save = async (kind: string, fetchFile: () => Promise<Download | Blob>, fallbackName: string) => {
    setBusy(kind);
    setError(null);
    try {
      const file = await fetchFile();
      const blob = file instanceof Blob ? file : await new Response(file.stream).blob();
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = (file instanceof Blob ? null : file.filename) ?? fallbackName;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };
  const slug = deal.business_name.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase();
  return (
    <div className="downloads">
      <span className="muted">Download</span>
      <button
        type="button"
        disabled={!ready || busy !== null}
        onClick={() => void save('pdf', () => ll.exports.dealPdf(deal.id), `${slug}.pdf`)}
      >
        PDF report
      </button>
      <button
        type="button"
        disabled={!ready || busy !== null}
        onClick={() => void save('csv', () => ll.exports.dealCsv(deal.id), `${slug}.csv`)}
      >
        CSV
      </button>
      <button
        type="button"
        disabled={!ready || busy !== null}
        onClick={() =>
          void save(
            'json',
            async () => new Blob([JSON.stringify(await ll.deals.get(deal.id), null, 2)], { type: 'application/json' }),
            `${slug}.json`,
          )
        }
      >
        JSON
      </button>
      {error ? <ErrorNotice error={error} action="download" /> : null}
    </div>
  );
}
