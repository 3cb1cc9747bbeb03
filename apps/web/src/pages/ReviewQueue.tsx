import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ll } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { Pager } from '../components/Pager';
import { TableWrap } from '../components/TableWrap';
import { period, when } from '../format';

const PER_PAGE = 50;

/**
 * Every statement of the organization a person should look at (`needs_review`), with its reasons:
 * those of deals assigned to me first, then the oldest reading first. A row opens its review page.
 */
export function ReviewQueuePage() {
  const [page, setPage] = useState(1);
  const queue = useQuery({
    queryKey: ['review-queue', page],
    queryFn: ({ signal }) => ll.documents.reviewQueue({ page, per_page: PER_PAGE }, { signal }),
    placeholderData: keepPreviousData,
  });
  const meta = queue.data?.meta;
  const items = queue.data?.data ?? [];
  return (
    <section aria-labelledby="queue-title">
      <div className="page-head">
        <h1 id="queue-title">Review queue</h1>
        <span className="muted count">{meta ? `${meta.total} statement${meta.total === 1 ? '' : 's'} to review` : ''}</span>
      </div>
      {queue.isError ? <ErrorNotice error={queue.error} /> : null}
      <TableWrap label="Statements needing review">
        <table className="dense" aria-busy={queue.isFetching}>
          <thead>
            <tr>
              <th scope="col">Statement</th>
              <th scope="col">Deal</th>
              <th scope="col">Bank and period</th>
              <th scope="col">Why</th>
              <th scope="col">Read</th>
            </tr>
          </thead>
          <tbody>
            {queue.isPending ? (
              <tr>
                <td colSpan={5} className="muted">
                  Loading…
                </td>
              </tr>
            ) : items.length === 0 ? (
              <tr>
                <td colSpan={5} className="muted">
                  Nothing to review: every statement read adds up or has been checked.
                </td>
              </tr>
            ) : (
              items.map((d) => (
                <tr key={d.document_id} data-document-id={d.document_id}>
                  <td>
                    <Link
                      to="/deals/$dealId/documents/$documentId"
                      params={{ dealId: String(d.deal_id), documentId: String(d.document_id) }}
                    >
                      {d.filename}
                    </Link>
                    {d.assigned_to_me ? <span className="badge">Assigned to me</span> : null}
                  </td>
                  <td>
                    <Link to="/deals/$dealId" params={{ dealId: String(d.deal_id) }}>
                      {d.business_name}
                    </Link>
                  </td>
                  <td>
                    {d.bank_name ?? 'Unknown bank'}
                    <div className="muted small">{period(d.statement_start_date, d.statement_end_date)}</div>
                  </td>
                  <td>
                    <ul className="reasons">
                      {d.review_reasons.length ? (
                        d.review_reasons.map((r) => <li key={r}>{r}</li>)
                      ) : (
                        <li>The reader marked it for review</li>
                      )}
                    </ul>
                  </td>
                  <td className="nowrap">{when(d.processing_completed_at)}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableWrap>
      <Pager page={page} totalPages={meta?.total_pages} onPage={setPage} />
    </section>
  );
}
