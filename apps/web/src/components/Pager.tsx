/** Previous / Page n of m / Next under a paged table; nothing when there is one page. */
export function Pager({ page, totalPages, onPage }: { page: number; totalPages: number | undefined; onPage: (page: number) => void }) {
  if (!totalPages || totalPages <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
