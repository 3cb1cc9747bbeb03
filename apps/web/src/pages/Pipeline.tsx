import { useEffect, useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { can, keys, ll, queryClient, type DealStatus, type DealSummary } from '../api';
import { DecisionBadge, Score, StatusBadge } from '../components/Badges';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { Pager } from '../components/Pager';
import { TableWrap } from '../components/TableWrap';
import { useSession } from '../components/Root';
import { usd, when } from '../format';

const STATUSES: DealStatus[] = ['new', 'processing', 'under_review', 'ready', 'failed'];
type SortKey = 'updated_at' | 'created_at' | 'business_name' | 'status' | 'health_score';
const PER_PAGE = 25;
const route = getRouteApi('/');

export interface PipelineSearch {
  q?: string;
  status?: DealStatus;
  sort?: SortKey;
  order?: 'asc' | 'desc';
  page?: number;
}

/** The pipeline's state lives in the URL (?q=&status=&sort=&order=&page=): shareable, and Back works. */
export function parsePipelineSearch(search: Record<string, unknown>): PipelineSearch {
  const out: PipelineSearch = {};
  if (typeof search.q === 'string' && search.q) out.q = search.q.slice(0, 500);
  if (typeof search.status === 'string' && (STATUSES as string[]).includes(search.status)) out.status = search.status as DealStatus;
  if (typeof search.sort === 'string' && ['updated_at', 'created_at', 'business_name', 'status', 'health_score'].includes(search.sort))
    out.sort = search.sort as SortKey;
  if (search.order === 'asc' || search.order === 'desc') out.order = search.order;
  const page = Number(search.page);
  if (Number.isInteger(page) && page > 1) out.page = page;
  return out;
}

export function PipelinePage() {
  const search = route.useSearch();
  const navigate = useNavigate();
  const session = useSession().data;
  const [creating, setCreating] = useState(false);
  const [text, setText] = useState(search.q ?? '');
  const sort = search.sort ?? 'updated_at';
  const order = search.order ?? 'desc';
  const page = search.page ?? 1;
  const setSearch = (patch: Partial<PipelineSearch>) =>
    void navigate({ to: '/', search: (prev: PipelineSearch) => parsePipelineSearch({ ...prev, page: undefined, ...patch }) });

  // the search box asks the API once typing pauses
  useEffect(() => {
    if ((search.q ?? '') === text) return;
    const timer = setTimeout(() => setSearch({ q: text || undefined }), 250);
    return () => clearTimeout(timer);
  }, [text]);

  const query = { q: search.q, status: search.status, sort, order, page, per_page: PER_PAGE };
  const deals = useQuery({
    queryKey: keys.deals(query),
    queryFn: ({ signal }) => ll.deals.list(query, { signal }),
    placeholderData: keepPreviousData,
  });
  const meta = deals.data?.meta;
  // the page's assignees in one request (not one per row)
  const ids = (deals.data?.data ?? []).map((d) => d.id);
  const assignees = useQuery({
    queryKey: ['assignments-of', ids, deals.dataUpdatedAt],
    enabled: ids.length > 0,
    queryFn: ({ signal }) => ll.assignments.listForDeals(ids, { signal }),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const assigneesOf = new Map<number, string>();
  for (const a of assignees.data ?? []) {
    const name = a.user_name ?? a.user_email;
    assigneesOf.set(a.deal_id, assigneesOf.has(a.deal_id) ? `${assigneesOf.get(a.deal_id)}, ${name}` : name);
  }

  const sortBy = (key: SortKey) => setSearch({ sort: key, order: sort === key && order === 'desc' ? 'asc' : 'desc' });
  const header = (key: SortKey, text: string, numeric = false) => (
    <th
      scope="col"
      aria-sort={sort === key ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}
      className={numeric ? 'num' : undefined}
    >
      <button type="button" className="sort" onClick={() => sortBy(key)}>
        {text}
        <span aria-hidden="true" className="sort-mark">
          {sort === key ? (order === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );

  return (
    <section aria-labelledby="pipeline-title">
      <div className="page-head">
        <h1 id="pipeline-title">Pipeline</h1>
        <span className="muted count">
          {meta ? `${meta.total_estimated ? '≈' : ''}${meta.total} deal${meta.total === 1 ? '' : 's'}` : ''}
        </span>
        <div className="spacer" />
        {can(session, 'write') && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New deal
          </button>
        )}
      </div>
      <div className="toolbar" role="search">
        <label className="field">
          <span>Search</span>
          <input type="search" placeholder="Business, DBA, owner, EIN…" value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <label className="field">
          <span>Status</span>
          <select
            value={search.status ?? ''}
            onChange={(e) => setSearch({ status: (e.target.value || undefined) as DealStatus | undefined })}
          >
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
      </div>
      {deals.isError && <ErrorNotice error={deals.error} />}
      <TableWrap label="Deals">
        <table className="dense" aria-busy={deals.isFetching}>
          <caption className="visually-hidden">
            Deals, {sort.replace('_', ' ')} {order === 'asc' ? 'ascending' : 'descending'}
          </caption>
          <thead>
            <tr>
              {header('business_name', 'Business')}
              {header('status', 'Status')}
              {header('health_score', 'Score', true)}
              <th scope="col">Recommendation</th>
              <th scope="col">Decision</th>
              <th scope="col" className="num">
                Flags
              </th>
              <th scope="col" className="num">
                Requested
              </th>
              <th scope="col">Assignee</th>
              {header('updated_at', 'Updated')}
            </tr>
          </thead>
          <tbody>
            {deals.data?.data.map((deal) => (
              <DealRow key={deal.id} deal={deal} assignee={assigneesOf.get(deal.id)} />
            ))}
            {deals.data && deals.data.data.length === 0 && (
              <tr>
                <td colSpan={9} className="empty-row">
                  {search.q || search.status ? 'No deal matches.' : 'No deals yet: create one to start.'}
                </td>
              </tr>
            )}
            {deals.isPending && (
              <tr>
                <td colSpan={9} className="empty-row">
                  Loading…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </TableWrap>
      <Pager page={page} totalPages={meta?.total_pages} onPage={(p) => setSearch({ page: p })} />
      <NewDealDialog open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}

/** One deal of the page; its assignees come with the page's one request. */
function DealRow({ deal, assignee }: { deal: DealSummary; assignee: string | undefined }) {
  return (
    <tr>
      <th scope="row">
        <Link to="/deals/$dealId" params={{ dealId: String(deal.id) }}>
          {deal.business_name}
        </Link>
        {deal.dba_name ? <span className="muted sub">dba {deal.dba_name}</span> : null}
      </th>
      <td>
        <StatusBadge status={deal.status} />
      </td>
      <td className="num">
        <Score score={deal.health_score} grade={deal.health_grade} />
      </td>
      <td>{deal.recommendation_decision ? <DecisionBadge decision={deal.recommendation_decision} /> : <span className="muted">—</span>}</td>
      <td>
        <DecisionBadge decision={deal.decision} />
      </td>
      <td className={`num${deal.screening_flags > 0 ? ' flagged' : ''}`}>{deal.screening_flags}</td>
      <td className="num">{usd(deal.funding_amount_requested)}</td>
      <td>{assignee || <span className="muted">—</span>}</td>
      <td className="nowrap">{when(deal.updated_at)}</td>
    </tr>
  );
}

function NewDealDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [amount, setAmount] = useState('');
  const create = useMutation({
    mutationFn: () => ll.deals.create({ business_name: name.trim(), funding_amount_requested: Number(amount) }),
    onSuccess: (deal) => {
      void queryClient.invalidateQueries({ queryKey: ['deals'] });
      setName('');
      setAmount('');
      onClose();
      void navigate({ to: '/deals/$dealId', params: { dealId: String(deal.id) } });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <Dialog open={open} onClose={onClose} title="New deal">
      <form onSubmit={submit} className="form">
        <label>
          Business name
          <input name="business_name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </label>
        <label>
          Requested amount (USD)
          <input
            name="funding_amount_requested"
            type="number"
            inputMode="decimal"
            min="1"
            step="any"
            required
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        </label>
        {create.isError && <ErrorNotice error={create.error} action="create the deal" />}
        <div className="actions">
          <button type="button" className="ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create deal
          </button>
        </div>
      </form>
    </Dialog>
  );
}
