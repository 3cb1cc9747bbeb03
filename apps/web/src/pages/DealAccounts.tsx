import type { DealDetail } from '../api';
import { TableWrap } from '../components/TableWrap';
import { day, period, usd, usdCents } from '../format';

const GROUPED: Record<string, string> = {
  account_number: 'Account number',
  balance_continuity: 'Balance continuity',
  single_statement: 'One statement',
};

/** The deal's accounts (and the stale statements left out), own-account transfers and affordability. */
export function AccountsPanels({ deal }: { deal: DealDetail }) {
  return (
    <>
      <AccountsPanel deal={deal} />
      <TransfersPanel deal={deal} />
      <AffordabilityPanel deal={deal} />
    </>
  );
}

function AccountsPanel({ deal }: { deal: DealDetail }) {
  const stale = deal.staleness?.stale_statements ?? [];
  if (deal.accounts.length === 0 && stale.length === 0) return null;
  const name = new Map(deal.statements.map((s) => [s.document_id, s.filename]));
  return (
    <section className="panel" aria-labelledby="accounts-title">
      <h2 id="accounts-title">
        Accounts <span className="muted count">{deal.accounts.length}</span>
      </h2>
      <TableWrap label="Accounts">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Bank</th>
              <th scope="col">Statements</th>
              <th scope="col">Period</th>
              <th scope="col">Grouped by</th>
            </tr>
          </thead>
          <tbody>
            {deal.accounts.map((a) => (
              <tr key={a.account}>
                <th scope="row">
                  {a.account}
                  {a.account_number_last4 ? ` ••${a.account_number_last4}` : ''}
                </th>
                <td>{a.bank_name ?? '—'}</td>
                <td>{a.statement_ids.map((id) => name.get(id) ?? String(id)).join(', ')}</td>
                <td className="nowrap">{a.period_start && a.period_end ? period(a.period_start, a.period_end) : '—'}</td>
                <td>{GROUPED[a.grouped_by] ?? a.grouped_by}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {stale.length > 0 && (
        <p className="notice notice-warn">
          Stale, left out of every figure ({deal.staleness?.lookback_months} or more months before the newest statement):{' '}
          {stale.map((s) => `${name.get(s.statement_id ?? -1) ?? s.statement_id} (${s.period_end ?? 'undated'})`).join('; ')}
        </p>
      )}
    </section>
  );
}

function TransfersPanel({ deal }: { deal: DealDetail }) {
  const t = deal.own_transfers;
  if (!t || t.count === 0) return null;
  return (
    <section className="panel" aria-labelledby="transfers-title">
      <h2 id="transfers-title">
        Own-account transfers <span className="muted count">{t.count}</span>
      </h2>
      <p className="muted">{usdCents(t.total)} moved between the merchant&apos;s accounts: neither revenue nor expense.</p>
      <TableWrap label="Own-account transfers">
        <table className="dense">
          <thead>
            <tr>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col">Debit</th>
              <th scope="col">Credit</th>
            </tr>
          </thead>
          <tbody>
            {t.transfers.map((x) => (
              <tr key={`${x.debit.statement_id}-${x.debit.statement_tx_index}`}>
                <td className="num">{usdCents(x.amount)}</td>
                <td>
                  {day(x.debit.date)} · {x.debit.account} · {x.debit.description}
                </td>
                <td>
                  {day(x.credit.date)} · {x.credit.account} · {x.credit.description}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </section>
  );
}

function AffordabilityPanel({ deal }: { deal: DealDetail }) {
  const a = deal.affordability;
  if (!a) return null;
  return (
    <section className="panel" aria-labelledby="affordability-title">
      <h2 id="affordability-title">
        Affordability <span className="muted count">max advance {usd(a.max_advance)}</span>
      </h2>
      <ol>
        {a.steps.map((s) => (
          <li key={s}>{s}</li>
        ))}
      </ol>
    </section>
  );
}
