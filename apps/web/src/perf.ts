import { useEffect } from 'react';

/**
 * Marks the moment a page is usable (its data shown, not only its frame): a `performance.mark`
 * named `ledgerlens:<name>` (its startTime is from the navigation's start on a fresh load) and a
 * `data-<name>` attribute on the page's root element, for the browser tests and `npm run
 * bench:web`. Once per `key` (a deal, a document).
 */
export function useUsable(name: string, ready: boolean, key: number, root: { current: HTMLElement | null }): void {
  useEffect(() => {
    if (!ready) return;
    performance.mark(`ledgerlens:${name}`, { detail: { key } });
    root.current?.setAttribute(`data-${name}`, String(key));
  }, [name, ready, key, root]);
}
