import { useEffect, useState } from 'react';
import { LedgerlensError } from '@ledgerlens/sdk';
import { ll, queryClient } from './api';

export type LiveState = 'connecting' | 'live' | 'offline';

/**
 * The organization's event stream (server-sent events through the SDK, which resumes after a drop
 * with Last-Event-ID): every event refreshes what it touches, so lists and deal pages follow the
 * pipeline without a reload.
 */
export function useLiveEvents(enabled: boolean): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    void (async () => {
      try {
        setState('connecting');
        for await (const event of ll.events.stream({ signal: controller.signal })) {
          setState('live');
          if (!event.envelope) continue;
          const dealId = event.data.deal_id;
          void queryClient.invalidateQueries({ queryKey: ['deals'] });
          if (typeof dealId === 'number') {
            void queryClient.invalidateQueries({ queryKey: ['deal', dealId] });
            void queryClient.invalidateQueries({ queryKey: ['documents', dealId] });
            void queryClient.invalidateQueries({ queryKey: ['timeline', dealId] });
            void queryClient.invalidateQueries({ queryKey: ['comments', dealId] });
          }
        }
      } catch (err) {
        if (controller.signal.aborted) return;
        setState('offline');
        // signed out elsewhere: the session query shows the sign-in again
        if (err instanceof LedgerlensError && err.status === 401) void queryClient.invalidateQueries({ queryKey: ['session'] });
      }
    })();
    return () => controller.abort();
  }, [enabled]);
  return state;
}
