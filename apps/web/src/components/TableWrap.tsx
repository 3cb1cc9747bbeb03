import type { ReactNode } from 'react';

/** A table that may scroll sideways: a named region the keyboard can reach and scroll. */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
