import { isTerminal } from '@pis/shared';
import { useEffect, useState } from 'react';
import { dashboardApi, type PaymentView } from '../api/dashboard-api.ts';

/** Under the server's 30 s idle connection timeout (as the payment page's reads). */
const WAIT_SECONDS = 25;
/** After a failed read (offline, a deploy): try again, never give up while the card is shown. */
const RETRY_MS = 3000;
/** A server that answered an unchanged payment this fast did not wait: read again after REFRESH_MS. */
const QUICK_ANSWER_MS = 1000;
const REFRESH_MS = 2000;

/**
 * One payment, live until it finishes: each read after the first waits on the server for a
 * change (DESIGN.md "Live reads"), so the card changes within a moment of the customer paying.
 */
export function useLivePayment(paymentId: string): PaymentView | null {
  const [view, setView] = useState<PaymentView | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    let etag: string | undefined;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    (async () => {
      while (!abort.signal.aborted) {
        const started = Date.now();
        try {
          const next = await dashboardApi.payment(
            paymentId,
            abort.signal,
            etag ? { ifNoneMatch: etag, waitSeconds: WAIT_SECONDS } : undefined,
          );
          if (abort.signal.aborted) return;
          const changed = next.etag !== etag;
          etag = next.etag;
          if (changed) setView(next);
          if (isTerminal(next.payment.status)) return;
          if (!changed && Date.now() - started < QUICK_ANSWER_MS) await pause(REFRESH_MS);
        } catch {
          if (abort.signal.aborted) return;
          await pause(RETRY_MS);
        }
      }
    })();
    return () => abort.abort();
  }, [paymentId]);
  return view;
}
