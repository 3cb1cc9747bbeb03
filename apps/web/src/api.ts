import { Ledgerlens, LedgerlensError, type BrowserSession, type components } from '@ledgerlens/sdk';
import { QueryClient } from '@tanstack/react-query';

/**
 * The app's one way to the API: the SDK, on the page's origin, with the browser session cookie
 * (set by sign-in, HttpOnly: this code never sees it) and the session's CSRF token, which the SDK
 * learns from `session.signIn`/`session.get` and sends with every request.
 */
export const ll = Ledgerlens.browser({ maxRetries: 2, timeoutMs: 30_000 });

export type Schemas = components['schemas'];
export type DealSummary = Schemas['DealSummaryDto'];
export type DealDetail = Schemas['DealDetailDto'];
export type DocumentSummary = Schemas['DocumentSummaryDto'];
export type DocumentStatus = Schemas['DocumentStatusDto'];
export type DealStatus = DealSummary['status'];
export type Decision = Schemas['DecisionDto']['decision'];
export type { BrowserSession };

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      // a refusal or a missing record does not get better by asking again
      retry: (count, error) => !(error instanceof LedgerlensError && error.status < 500) && count < 2,
    },
  },
});

export const keys = {
  session: ['session'] as const,
  deals: (query: object) => ['deals', query] as const,
  deal: (id: number) => ['deal', id] as const,
  documents: (dealId: number) => ['documents', dealId] as const,
  document: (id: number) => ['document', id] as const,
  transactions: (documentId: number) => ['transactions', documentId] as const,
  assignments: (dealId: number) => ['assignments', dealId] as const,
};

/** What the signed-in user's role allows (the API decides; the app only hides what would be refused). */
export function can(session: BrowserSession | null | undefined, action: 'write'): boolean {
  return !!session?.scopes.includes(action);
}

/** A failed call in words for the page: the API's own detail, with its status. */
export function describeError(error: unknown): { status: number | null; message: string } {
  if (error instanceof LedgerlensError) return { status: error.status, message: error.detail || error.message };
  if (error instanceof Error) return { status: null, message: error.message };
  return { status: null, message: String(error) };
}
