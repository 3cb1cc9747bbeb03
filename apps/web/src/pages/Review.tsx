import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { experimental_streamedQuery as streamedQuery, useMutation, useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { can, keys, ll, queryClient, type Schemas } from '../api';
import { Crumbs } from '../components/Crumbs';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSession } from '../components/Root';
import { day, usdCents } from '../format';
import type { PDFDocumentProxy } from '../review/pdf';
import { AddRow, DeleteRow, FixRow, type Transaction } from '../review/RowForms';
import { appendRows, documentRows, NO_ROWS, RowsGrid } from '../review/RowsGrid';
import { useUsable } from '../perf';

const route = getRouteApi('/deals/$dealId/documents/$documentId');

type TamperFinding = Schemas['TamperFindingDto'];

/** What the panel under the rows shows: nothing, or the form of one change. */
type Mode = null | 'fix' | 'add' | 'delete';

/**
 * The balance chain, checked in the page: the rows whose printed running balance does not follow
 * from the one before (or from the opening balance) and their own amount. Checked again whenever
 * the rows change, so a fixed amount clears its mark at once.
 */
export function chainBreaks(rows: Transaction[], opening: number | null): Map<number, string> {
  const breaks = new Map<number, string>();
  let running = opening;
  for (const t of rows) {
    if (running !== null) running = Math.round((running + t.amount) * 100) / 100;
    if (t.balance === null) continue;
    if (running !== null && Math.abs(running - t.balance) >= 0.005)
      breaks.set(t.id, `The running balance does not follow: ${usdCents(running)} expected, ${usdCents(t.balance)} printed`);
    running = t.balance;
  }
  return breaks;
}

/**
 * Resolves when the query has its data or its error, or after `ms` (it may never start): the rows
 * after the first page wait for the statement's file, so the page is drawn before they arrive.
 */
function settled(queryKey: readonly unknown[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      const status = queryClient.getQueryState(queryKey)?.status;
      return status === 'success' || status === 'error';
    };
    if (done()) return resolve();
    const timer = setTimeout(finish, ms);
    const unsubscribe = queryClient.getQueryCache().subscribe(() => {
      if (done()) finish();
    });
    function finish() {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    }
  });
}

/** Who may correct a row: the API allows admins and managers (a 403 for anyone else). */
const CORRECTORS = new Set(['admin', 'manager']);

/**
 * The document review page: the statement's page (pdf.js) on the left, the rows read from it on the
 * right. A row's `source` boxes (PDF points from the page's top-left) are drawn over the page; a
 * click on either side selects the row. Up/down moves, Enter edits, Escape cancels.
 */
export function ReviewPage() {
  const params = route.useParams();
  const dealId = Number(params.dealId);
  const documentId = Number(params.documentId);
  const session = useSession().data;
  const corrector = !!session && CORRECTORS.has(session.user.role);

  const doc = useQuery({
    queryKey: keys.document(documentId),
    queryFn: ({ signal }) => ll.documents.get(documentId, { signal }),
  });
  const deal = useQuery({ queryKey: keys.deal(dealId), queryFn: ({ signal }) => ll.deals.get(dealId, { signal }) });
  const rows = useQuery({
    queryKey: keys.transactions(documentId),
    // shown from the first page on; after a change, the list is read again and replaces the old one when complete
    queryFn: streamedQuery({
      streamFn: ({ signal }) => documentRows(documentId, signal, settled(['document-file', documentId], 3000)),
      reducer: appendRows,
      initialValue: NO_ROWS,
      refetchMode: 'replace',
    }),
  });
  const file = useQuery({
    queryKey: ['document-file', documentId],
    enabled: !!doc.data,
    staleTime: Infinity,
    queryFn: async ({ signal }) => {
      // the original file when it is a PDF; an image statement as the PDF the server converts it to
      const pdf = doc.data!.mime_type === 'application/pdf';
      const download = pdf ? await ll.documents.download(documentId, { signal }) : await ll.documents.pdf(documentId, { signal });
      return new Uint8Array(await new Response(download.stream).arrayBuffer());
    },
  });

  const [selected, setSelected] = useState<number | null>(null);
  const [mode, setMode] = useState<Mode>(null);
  const [draft, setDraft] = useState<{ id: number; amount: number } | null>(null);
  const editing = mode !== null;
  const setEditing = (on: boolean) => setMode(on ? 'fix' : null);
  const [page, setPage] = useState(1);
  const [evidence, setEvidence] = useState<number | null>(null);
  const region = useRef<HTMLDivElement>(null);
  const root = useRef<HTMLElement>(null);
  const [drawn, setDrawn] = useState(false);
  // usable: the rows listed and the statement's page drawn
  useUsable('review-usable', rows.isSuccess && !!doc.data && !!deal.data && drawn, documentId, root);
  // and every row arrived (a long statement's come after the first page)
  useUsable('review-rows-loaded', rows.isSuccess && !rows.isFetching && !!doc.data && !!deal.data, documentId, root);
  const stopEditing = () => {
    setEditing(false);
    region.current?.focus({ preventScroll: true });
  };
  const list = rows.data?.rows ?? [];
  const total = rows.data?.total ?? 0;
  const loading = list.length < total;
  const current = list.find((t) => t.id === selected) ?? null;
  const reviewed = useMutation({
    mutationFn: () => ll.documents.markReviewed(documentId),
    onSuccess: async () => {
      await Promise.all(
        [keys.document(documentId), keys.deal(dealId), ['deals'], ['review-queue']].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      );
    },
  });

  const select = (t: Transaction | undefined) => {
    if (!t) return;
    setSelected(t.id);
    setEditing(false);
    // the list keeps the keyboard, also after a click on the page
    region.current?.focus({ preventScroll: true });
    if (t.source) setPage(t.source.page);
  };

  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (editing) return;
    const index = list.findIndex((t) => t.id === selected);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? Math.min(list.length - 1, index + 1) : Math.max(0, index - 1);
      select(list[index < 0 ? 0 : next]);
    } else if (e.key === 'Home' || e.key === 'End') {
      // the first or the last row (a statement can have thousands)
      e.preventDefault();
      select(e.key === 'Home' ? list[0] : list[list.length - 1]);
    } else if (e.key === 'Enter' && current && corrector) {
      e.preventDefault();
      setEditing(true);
    }
  };

  if (doc.isPending || deal.isPending) return <p className="splash">Loading…</p>;
  if (doc.isError) return <ErrorNotice error={doc.error} />;
  if (deal.isError) return <ErrorNotice error={deal.error} />;
  const d = doc.data;
  const review = deal.data.review?.documents.find((r) => r.document_id === documentId);
  const reasons = [...new Set([...(d.review_reasons ?? []), ...(review?.reasons ?? [])])];
  const warnings = review?.warnings ?? [];
  const pageCount = d.page_count ?? 1;
  // while a fix is typed, the chain is checked on the amount being typed (before it is saved)
  const drafted = draft ? list.map((t) => (t.id === draft.id ? { ...t, amount: draft.amount } : t)) : list;
  const breaks = chainBreaks(drafted, d.opening_balance);
  const warningsOf = (t: Transaction) => [...t.row_warnings, ...(breaks.has(t.id) ? [breaks.get(t.id)!] : [])];
  // in a long statement, the rows to look at: the next one after the selection (from the top again)
  const isFlagged = (t: Transaction) => t.row_warnings.length > 0 || breaks.has(t.id);
  const flagged = list.reduce((n, t) => n + (isFlagged(t) ? 1 : 0), 0);
  const nextFlagged = () => {
    const at = list.findIndex((t) => t.id === selected);
    select(list.slice(at + 1).find(isFlagged) ?? list.find(isFlagged));
  };
  // the signs of editing read from the content: each names its page and boxes, shown over the page
  const findings: TamperFinding[] = d.tamper_findings ?? [];
  const showFinding = (i: number) => {
    setEvidence(i);
    const p = findings[i].page;
    if (p) setPage(p);
  };

  return (
    <article aria-labelledby="review-title" className="review" ref={root}>
      <Crumbs
        trail={[
          <Link key="deal" to="/deals/$dealId" params={{ dealId: String(dealId) }}>
            {deal.data.business_name}
          </Link>,
          <span key="file">{d.filename}</span>,
        ]}
      />
      <div className="page-head">
        <h1 id="review-title">{d.filename}</h1>
        {d.needs_review ? <span className="badge decision-review">Needs review</span> : null}
        {d.reviewed_at ? (
          <span className="badge decision-approve">
            Reviewed {day(d.reviewed_at.slice(0, 10))} by {d.reviewed_by}
          </span>
        ) : null}
        {d.needs_review && can(session, 'write') ? (
          <button type="button" className="primary" onClick={() => reviewed.mutate()} disabled={reviewed.isPending}>
            {reviewed.isPending ? 'Saving…' : 'Mark reviewed'}
          </button>
        ) : null}
        <span className="muted">
          {d.bank_name ?? 'Unknown bank'}
          {d.account_number_last4 ? ` ••${d.account_number_last4}` : ''}
        </span>
      </div>
      {reviewed.isError ? <ErrorNotice error={reviewed.error} action="mark the statement reviewed" /> : null}
      {reasons.length + warnings.length > 0 && (
        <ul className="notice notice-warn review-reasons" aria-label="Why this statement needs review">
          {reasons.map((r) => (
            <li key={`r-${r}`}>{r}</li>
          ))}
          {warnings.map((w) => (
            <li key={`w-${w}`}>{w}</li>
          ))}
        </ul>
      )}
      {findings.length > 0 && (
        <section className="notice notice-warn tamper-findings" aria-labelledby="tamper-title">
          <h2 id="tamper-title">Signs of editing ({d.pdf_risk_level ?? 'unknown'} risk): each is boxed on its page</h2>
          <ul>
            {findings.map((f, i) => (
              <li key={`f-${i}`}>
                <span className={`badge ${f.severity === 'high' ? 'decision-decline' : 'decision-review'}`}>{f.severity}</span>{' '}
                {f.page ? (
                  <button type="button" className="link" aria-pressed={evidence === i} onClick={() => showFinding(i)}>
                    {f.message}
                  </button>
                ) : (
                  f.message
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="review-grid">
        <section className="panel review-page" aria-labelledby="page-title">
          <div className="pager">
            <h2 id="page-title">
              Page {page} of {pageCount}
            </h2>
            <div className="spacer" />
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous page
            </button>
            <button type="button" disabled={page >= pageCount} onClick={() => setPage(page + 1)}>
              Next page
            </button>
          </div>
          <div className="pdf-scroll" role="region" aria-label="The statement's page" tabIndex={0}>
            {file.isError ? (
              <ErrorNotice error={file.error} action="open the statement" />
            ) : file.data ? (
              <PdfPage
                bytes={file.data}
                page={page}
                rows={list}
                warned={(t) => warningsOf(t).length > 0}
                selected={selected}
                onSelect={select}
                onDrawn={() => setDrawn(true)}
                evidence={findings.flatMap((f, i) =>
                  f.page === page ? f.boxes.map((box, k) => ({ key: `${i}-${k}`, box, selected: i === evidence, label: f.message })) : [],
                )}
              />
            ) : (
              <p className="muted">Opening the statement…</p>
            )}
          </div>
        </section>
        <section className="panel review-rows" aria-labelledby="rows-title">
          <div className="rows-head">
            <h2 id="rows-title">Rows read ({total.toLocaleString('en-US')})</h2>
            <div className="spacer" />
            {flagged > 0 ? (
              <button type="button" onClick={nextFlagged}>
                Next flagged row ({flagged})
              </button>
            ) : null}
          </div>
          {rows.isError ? <ErrorNotice error={rows.error} /> : null}
          <p className="muted small">↑ ↓ Home End move between rows{corrector ? ', Enter fixes the selected row, Escape cancels' : ''}.</p>
          {loading ? (
            <p className="muted small" role="status" data-testid="rows-loading">
              Loading rows: {list.length.toLocaleString('en-US')} of {total.toLocaleString('en-US')}…
            </p>
          ) : null}
          <RowsGrid
            rows={list}
            total={total}
            selected={selected}
            warningsOf={warningsOf}
            onSelect={select}
            region={region}
            onKeyDown={onKey}
          />
          {!corrector ? null : mode === 'fix' && current ? (
            <FixRow
              key={current.id}
              t={current}
              dealId={dealId}
              chain={breaks.size === 0 ? 'holds' : `still breaks at ${breaks.size} row${breaks.size === 1 ? '' : 's'}`}
              onDraft={setDraft}
              onDone={() => {
                setDraft(null);
                stopEditing();
              }}
            />
          ) : mode === 'delete' && current ? (
            <DeleteRow
              key={current.id}
              t={current}
              dealId={dealId}
              onDone={(deleted) => {
                if (deleted) setSelected(null);
                stopEditing();
              }}
            />
          ) : mode === 'add' ? (
            <AddRow
              documentId={documentId}
              dealId={dealId}
              after={current}
              onDone={(added) => {
                if (added) setSelected(added.id);
                stopEditing();
              }}
            />
          ) : (
            <p className="row-actions">
              {current ? (
                <>
                  <button type="button" onClick={() => setMode('fix')}>
                    Fix this row
                  </button>
                  <button type="button" onClick={() => setMode('delete')}>
                    Delete this row
                  </button>
                </>
              ) : null}
              <button type="button" onClick={() => setMode('add')}>
                {current ? 'Add a missed row after it' : 'Add a missed row'}
              </button>
            </p>
          )}
        </section>
      </div>
    </article>
  );
}

/** One page of the statement drawn by pdf.js, with the rows' boxes over it. */
/** Scrolls the page's own pane (not the window) so the first box matching `selector` in `holder` is in sight. */
function inSight(holder: HTMLElement | null, selector: string): void {
  const box = holder?.querySelector<HTMLElement>(selector);
  const pane = holder?.closest<HTMLElement>('.pdf-scroll');
  if (!holder || !box || !pane) return;
  const top = holder.offsetTop + box.offsetTop;
  const bottom = top + box.offsetHeight;
  const margin = 24;
  if (top - margin < pane.scrollTop) pane.scrollTop = Math.max(0, top - margin);
  else if (bottom + margin > pane.scrollTop + pane.clientHeight) pane.scrollTop = bottom + margin - pane.clientHeight;
}

function PdfPage({
  bytes,
  page,
  rows,
  warned,
  selected,
  onSelect,
  onDrawn,
  evidence,
}: {
  bytes: Uint8Array;
  page: number;
  rows: Transaction[];
  warned: (t: Transaction) => boolean;
  selected: number | null;
  onSelect: (t: Transaction) => void;
  /** a page was drawn */
  onDrawn: () => void;
  /** the boxes of the tamper findings on this page */
  evidence: Array<{ key: string; box: number[]; selected: boolean; label: string }>;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [scale, setScale] = useState(0);
  const [width, setWidth] = useState(0);

  // the page fits the column: drawn again when the column's width changes
  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    setWidth(el.clientWidth);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    let close: (() => Promise<void>) | null = null;
    let gone = false;
    // pdf.js is loaded here only, so the app's first screen does not carry it
    import('../review/pdf')
      // pdf.js takes ownership of the buffer it is given: a copy keeps the cached one usable
      .then(({ openPdf }) => openPdf(bytes.slice()))
      .then((opened) => {
        close = opened.close;
        if (gone) void opened.close();
        else setPdf(opened.pdf);
      })
      .catch((err: unknown) => setError(err));
    return () => {
      gone = true;
      void close?.();
    };
  }, [bytes]);

  useEffect(() => {
    if (!pdf || !canvas.current || width <= 0) return;
    let cancelled = false;
    let task: { cancel(): void; promise: Promise<void> } | null = null;
    void pdf.getPage(Math.min(page, pdf.numPages)).then((p) => {
      if (cancelled || !canvas.current) return;
      const base = p.getViewport({ scale: 1 });
      const fit = width / base.width;
      const ratio = window.devicePixelRatio || 1;
      const viewport = p.getViewport({ scale: fit * ratio });
      const c = canvas.current;
      delete c.dataset.rendered;
      c.width = Math.floor(viewport.width);
      c.height = Math.floor(viewport.height);
      c.style.width = `${base.width * fit}px`;
      c.style.height = `${base.height * fit}px`;
      task = p.render({ canvas: c, viewport });
      task.promise.then(
        () => {
          if (!cancelled) {
            setScale(fit);
            c.dataset.rendered = String(page);
            c.dataset.width = String(Math.round(width));
            onDrawn();
          }
        },
        () => undefined,
      );
    });
    return () => {
      cancelled = true;
      task?.cancel();
    };
  }, [pdf, page, width]);

  const onPage = useMemo(() => rows.filter((t) => t.source?.page === page), [rows, page]);

  // the selected row's boxes in sight in the page's own scrolling area (the window does not move)
  useEffect(() => inSight(holder.current, `.box[data-box-for="${selected}"]`), [selected, scale, page]);
  // and a finding's evidence, when one is chosen (it turns the page there)
  const marked = evidence
    .filter((e) => e.selected)
    .map((e) => e.key)
    .join(' ');
  useEffect(() => {
    if (marked) inSight(holder.current, '.box-evidence-selected');
  }, [marked, scale, page]);

  if (error) return <ErrorNotice error={error} action="draw the statement" />;
  return (
    <div className="pdf-holder" ref={holder}>
      <canvas ref={canvas} role="img" aria-label={`Page ${page} of the statement`} />
      {scale > 0 &&
        onPage.flatMap((t) =>
          (t.source?.boxes ?? []).map(([x0, y0, x1, y1], i) => (
            <div
              key={`${t.id}-${i}`}
              aria-hidden="true"
              data-box-for={t.id}
              className={`box ${t.id === selected ? 'box-selected' : ''} ${warned(t) ? 'box-warned' : ''}`}
              style={{ left: x0 * scale, top: y0 * scale, width: (x1 - x0) * scale, height: (y1 - y0) * scale }}
              onClick={() => onSelect(t)}
            />
          )),
        )}
      {scale > 0 &&
        evidence.map(({ key, box: [x0, y0, x1, y1], selected: on, label: title }) => (
          <div
            key={`e-${key}`}
            data-evidence={key}
            title={title}
            className={`box box-evidence ${on ? 'box-evidence-selected' : ''}`}
            style={{ left: x0 * scale, top: y0 * scale, width: (x1 - x0) * scale, height: (y1 - y0) * scale }}
          />
        ))}
      {!pdf ? <p className="muted">Drawing the page…</p> : null}
    </div>
  );
}
