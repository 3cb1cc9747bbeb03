import { useEffect, useLayoutEffect, useState, type KeyboardEvent, type RefObject } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ll } from '../api';
import { day, label, usdCents } from '../format';
import type { Transaction } from './RowForms';

const COLUMNS: [string, string?][] = [
  ['Date', 'col-date'],
  ['Description', 'col-desc'],
  ['Amount', 'num col-amount'],
  ['Category', 'col-cat'],
];

/** A row's height before it is measured (one line of 13px text and its padding, rounded up: the end of the list is then reached from above). */
const ROW_ESTIMATE = 32;
/** Rows drawn above and below the visible ones (a statement can have thousands: only these are in the DOM). */
const OVERSCAN = 12;
/** The API's largest page of rows. */
const PER_PAGE = 200;
/** Pages asked for ahead of the one being shown (a few: the statement's file and the rest of the page share the server). */
const AHEAD = 2;

/** A statement's rows as they arrive: those so far, and how many there are in all. */
export interface LoadedRows {
  rows: Transaction[];
  total: number;
}

/**
 * A statement's rows page after page, in order, a couple of pages asked for ahead: the list shows
 * (and is usable) from the first page on, while the others arrive (10,000 rows are 50 pages),
 * once `after` has settled.
 * For TanStack Query's streamedQuery, with `appendRows` as its reducer.
 */
export async function* documentRows(
  documentId: number,
  signal?: AbortSignal,
  /** what the other pages wait for (the statement's file: its page is drawn first) */
  after: Promise<unknown> = Promise.resolve(),
): AsyncGenerator<LoadedRows> {
  const page = (n: number) => ll.transactions.listForDocument(documentId, { per_page: PER_PAGE, page: n }, { signal });
  const first = await page(1);
  yield { rows: first.data, total: first.meta.total };
  const pages = first.meta.total_pages;
  if (pages > 1) await after;
  const inFlight: ReturnType<typeof page>[] = [];
  let next = 2;
  while (next <= pages || inFlight.length > 0) {
    while (next <= pages && inFlight.length < AHEAD) inFlight.push(page(next++));
    const got = await inFlight.shift()!;
    yield { rows: got.data, total: got.meta.total };
  }
}

export const appendRows = (so: LoadedRows, more: LoadedRows): LoadedRows => ({ rows: so.rows.concat(more.rows), total: more.total });
export const NO_ROWS: LoadedRows = { rows: [], total: 0 };

/**
 * The rows read from a statement: a grid (one selected row) of which only the rows in sight (and
 * a few around them) are in the DOM, the others stood for by two spacer rows, so a statement of
 * 10,000 rows scrolls as one of 50. aria-rowcount / aria-rowindex tell assistive technology where
 * each drawn row sits. The scrolling region keeps the keyboard (up/down/Enter/Escape are the
 * page's); the selected row is scrolled into sight when the selection moves.
 */
export function RowsGrid({
  rows,
  total,
  selected,
  warningsOf,
  onSelect,
  region,
  onKeyDown,
}: {
  rows: Transaction[];
  /** the statement's rows, some perhaps still on their way */
  total: number;
  selected: number | null;
  warningsOf: (t: Transaction) => string[];
  onSelect: (t: Transaction) => void;
  region: RefObject<HTMLDivElement | null>;
  onKeyDown: (e: KeyboardEvent<HTMLDivElement>) => void;
}) {
  // the sticky header covers the top of the list: rows start below it, and are scrolled to below it
  const [head, setHead] = useState(0);
  useLayoutEffect(() => {
    const th = region.current?.querySelector('thead');
    if (!th) return;
    const observer = new ResizeObserver(() => setHead(th.offsetHeight));
    observer.observe(th);
    setHead(th.offsetHeight);
    return () => observer.disconnect();
  }, [region]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => region.current,
    estimateSize: () => ROW_ESTIMATE,
    overscan: OVERSCAN,
    scrollMargin: head,
    scrollPaddingStart: head,
    getItemKey: (i) => rows[i].id,
  });
  const index = selected === null ? -1 : rows.findIndex((t) => t.id === selected);
  useEffect(() => {
    if (index < 0) return;
    const keep = () => virtualizer.scrollToIndex(index, { align: 'auto' });
    keep();
    // a narrower window makes the list shorter: the selected row stays in sight
    window.addEventListener('resize', keep);
    return () => window.removeEventListener('resize', keep);
  }, [index, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const top = items.length > 0 ? items[0].start - head : 0;
  const bottom = items.length > 0 ? virtualizer.getTotalSize() - (items[items.length - 1].end - head) : 0;
  return (
    <div ref={region} className="rows-scroll" role="region" aria-label="Rows read" tabIndex={0} onKeyDown={onKeyDown} data-testid="rows">
      <table
        className="dense rows-grid"
        role="grid"
        aria-label="Rows read from the statement"
        aria-rowcount={Math.max(total, rows.length) + 1}
        aria-busy={rows.length < total}
      >
        <colgroup>
          {COLUMNS.map(([name, className]) => (
            <col key={name} className={className} />
          ))}
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            {COLUMNS.map(([name, className]) => (
              <th key={name} scope="col" className={className}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {top > 0 ? <Spacer height={top} /> : null}
          {items.map((item) => {
            const t = rows[item.index];
            return (
              <Row
                key={t.id}
                t={t}
                index={item.index}
                measure={virtualizer.measureElement}
                warnings={warningsOf(t)}
                selected={t.id === selected}
                onSelect={onSelect}
              />
            );
          })}
          {bottom > 0 ? <Spacer height={bottom} /> : null}
        </tbody>
      </table>
    </div>
  );
}

/** Stands for the rows not drawn: their height, so the scrollbar is the whole list's. */
function Spacer({ height }: { height: number }) {
  return (
    <tr aria-hidden="true" className="rows-spacer">
      <td colSpan={COLUMNS.length} style={{ height }} />
    </tr>
  );
}

function Row({
  t,
  index,
  measure,
  warnings,
  selected,
  onSelect,
}: {
  t: Transaction;
  index: number;
  measure: (el: Element | null) => void;
  warnings: string[];
  selected: boolean;
  onSelect: (t: Transaction) => void;
}) {
  const warned = warnings.length > 0;
  return (
    <tr
      ref={measure}
      data-index={index}
      aria-rowindex={index + 2}
      aria-selected={selected}
      className={`${selected ? 'selected' : ''} ${warned ? 'warned' : ''} ${index % 2 ? 'odd' : ''}`}
      onClick={() => onSelect(t)}
      data-row-id={t.id}
    >
      <td className="nowrap">{day(t.date)}</td>
      <td>
        {t.description}
        {warned ? (
          <ul className="row-warnings" aria-label="Row warnings">
            {warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        ) : null}
        {t.origin === 'added' ? <span className="badge">Added</span> : t.corrected ? <span className="badge">Corrected</span> : null}
      </td>
      <td className={`num ${t.amount < 0 ? 'debit' : ''}`}>{usdCents(t.amount)}</td>
      <td>{label(t.category)}</td>
    </tr>
  );
}
