/**
 * The deal page's findings: authenticity (signs of editing per statement, each linked to its
 * review), consistency between statements with the period covered, and the same account or file
 * seen in another deal.
 */
import { Link } from '@tanstack/react-router';
import type { DealDetail } from '../api';
import { DailyBalanceChart, MonthlyChart } from '../components/Charts';
import { label, month, num, period, usd } from '../format';
import { TableWrap } from '../components/TableWrap';

export function ChartsPanel({ deal }: { deal: DealDetail }) {
  if (deal.monthly.length === 0 && deal.daily_balances.length < 2) return null;
  return (
    <section className="panel" aria-labelledby="charts-title">
      <h2 id="charts-title">Deposits and balance</h2>
      <div className="charts">
        {deal.monthly.length > 0 ? <MonthlyChart months={deal.monthly} /> : null}
        <DailyBalanceChart days={deal.daily_balances} />
      </div>
    </section>
  );
}

export function AuthenticityPanel({ deal }: { deal: DealDetail }) {
  const a = deal.authenticity;
  if (!a) return null;
  return (
    <section className="panel" aria-labelledby="auth-title">
      <h2 id="auth-title">
        Authenticity <span className={`badge risk-${a.risk_level}`}>{label(a.risk_level)} risk</span>
      </h2>
      {a.reasons.length ? (
        <ul className="reasons">
          {a.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">No sign of editing in the statements’ files or contents.</p>
      )}
      {a.documents.some((d) => d.risk_level !== 'low') ? (
        <ul className="findings">
          {a.documents
            .filter((d) => d.risk_level !== 'low')
            .map((d) => (
              <li key={d.document_id}>
                <span className={`badge risk-${d.risk_level}`}>{label(d.risk_level)}</span>{' '}
                <Link to="/deals/$dealId/documents/$documentId" params={{ dealId: String(deal.id), documentId: String(d.document_id) }}>
                  {d.filename}
                </Link>
                {d.reasons.length ? <span className="muted">: {d.reasons.join('; ')}</span> : null}
              </li>
            ))}
        </ul>
      ) : null}
    </section>
  );
}

export function ConsistencyPanel({ deal }: { deal: DealDetail }) {
  const c = deal.coverage;
  const findings = deal.cross_doc?.findings ?? [];
  if (!c && findings.length === 0) return null;
  const docName = new Map(deal.statements.map((s) => [s.document_id, s.filename]));
  return (
    <section className="panel" aria-labelledby="consistency-title">
      <h2 id="consistency-title">
        Between statements {deal.cross_doc ? <span className="muted count">score {num(deal.cross_doc.score)}</span> : null}
      </h2>
      {c ? (
        <p>
          {period(c.period_start, c.period_end)}: {c.months_covered} month{c.months_covered === 1 ? '' : 's'}, {c.days_covered} days covered
          by {c.statement_count} statement{c.statement_count === 1 ? '' : 's'}.
        </p>
      ) : null}
      {findings.length === 0 ? (
        <p className="muted">The statements follow on from each other: no gap, overlap or balance mismatch.</p>
      ) : (
        <ul className="findings">
          {findings.map((f, i) => (
            <li key={`${f.type}-${i}`}>
              <span className={`badge severity-${f.severity}`}>{label(f.type)}</span> {f.message}
              {f.statement_ids.length ? (
                <span className="muted"> ({f.statement_ids.map((id) => docName.get(id) ?? `document ${id}`).join(', ')})</span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function RelatedDealsPanel({ deal }: { deal: DealDetail }) {
  if (deal.related_deals.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="related-title">
      <h2 id="related-title">
        Seen in other deals <span className="muted count">{deal.related_deals.length}</span>
      </h2>
      <ul className="findings">
        {deal.related_deals.map((r) => (
          <li key={`${r.document_id}-${r.other_document_id}`}>
            <span className={`badge severity-${r.severity}`}>{r.type === 'same_file' ? 'Same file' : 'Same account'}</span> {r.message}{' '}
            <Link to="/deals/$dealId" params={{ dealId: String(r.other_deal_id) }}>
              {r.other_business_name}
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** True revenue per month: every deposit, what each non-revenue class took out, what is left. */
export function TrueRevenuePanel({ deal }: { deal: DealDetail }) {
  const r = deal.revenue;
  if (!r || r.months.length === 0) return null;
  const rows = [...r.months.map((m) => ({ key: m.month, name: month(m.month), m })), { key: 'total', name: 'Total', m: r.totals }];
  return (
    <section className="panel" aria-labelledby="revenue-title">
      <h2 id="revenue-title">
        True revenue{' '}
        <span className="muted count">
          {usd(r.totals.true_revenue)} of {usd(r.totals.gross_deposits)} deposits
        </span>
      </h2>
      {r.unidentified_count > 0 ? (
        <p className="muted small">
          {r.unidentified_count} deposit{r.unidentified_count === 1 ? '' : 's'} ({usd(r.unidentified_total)}) matched no rule and count as
          revenue: check them first. A deposit&apos;s class can be changed on its statement&apos;s review page.
        </p>
      ) : null}
      <TableWrap label="True revenue per month">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col" className="num">
                Deposits
              </th>
              <th scope="col" className="num">
                Transfers
              </th>
              <th scope="col" className="num">
                Loans / MCA
              </th>
              <th scope="col" className="num">
                Refunds
              </th>
              <th scope="col" className="num">
                Owner
              </th>
              <th scope="col" className="num">
                Other
              </th>
              <th scope="col" className="num">
                True revenue
              </th>
              <th scope="col" className="num">
                Cash
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, name, m }) => (
              <tr key={key} className={key === 'total' ? 'total' : undefined}>
                <th scope="row" className="nowrap">
                  {name}
                </th>
                <td className="num">{usd(m.gross_deposits)}</td>
                <td className="num">{usd(m.excluded.transfer)}</td>
                <td className="num">{usd(m.excluded.loan_proceeds)}</td>
                <td className="num">{usd(m.excluded.refund)}</td>
                <td className="num">{usd(m.excluded.owner_injection)}</td>
                <td className="num">{usd(m.excluded.other_non_revenue)}</td>
                <td className="num">
                  <strong>{usd(m.true_revenue)}</strong>
                </td>
                <td className="num">{usd(m.cash_deposits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}
