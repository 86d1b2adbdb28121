import type pg from 'pg';
import { inTransaction } from '../db/transaction.ts';
import type { Logger } from '../logger.ts';
import { stepDue as stepXs2a } from '../xs2a/payments.ts';
import { enqueueNotification } from './notifications.ts';
import { type PaymentStatus, stepPayment } from './payments.ts';

/**
 * The payment engine: a payment's next step is a time in its row (`next_step_at`), so a
 * restart loses nothing; a loop takes the due ones (skip locked: two bank processes never step
 * the same payment), for both faces. RCVD -> ACSP debits the chosen account (or RJCT/AM04 when the balance is
 * short); ACSP -> ACSC settles. Every change queues an event notification in the same transaction.
 */
export interface Engine {
  stop(): Promise<void>;
  /** Runs one pass now (tests). */
  tick(): Promise<number>;
}

const POLL_MS = 200;

export function startEngine(options: {
  pool: pg.Pool;
  stepMs: number;
  logger: Logger;
  eventsOn: boolean;
}): Engine {
  const { pool, stepMs, logger } = options;
  let stopped = false;
  let running: Promise<number> | undefined;

  const tick = async (): Promise<number> => {
    let done = 0;
    for (;;) {
      const stepped = await inTransaction(pool, async (db) => {
        const { rows } = await db.query<{
          id: string;
          client_id: string;
          status: PaymentStatus;
          amount: string;
          debtor_account_id: string | null;
        }>(
          `select p.id, p.client_id, p.status, p.data #>> '{Initiation,InstructedAmount,Amount}' as amount,
             c.debtor_account_id
           from payments p join consents c on c.id = p.consent_id
           where p.next_step_at <= now() order by p.next_step_at limit 1 for update of p skip locked`,
        );
        const payment = rows[0];
        if (!payment) return false;
        if (payment.status === 'RCVD') {
          const debited = await db.query(
            'update accounts set balance = balance - $2::numeric where id = $1 and balance >= $2::numeric',
            [payment.debtor_account_id, payment.amount],
          );
          if (debited.rowCount === 1) await stepPayment(db, payment.id, 'RCVD', 'ACSP', stepMs);
          else await stepPayment(db, payment.id, 'RCVD', 'RJCT', null, 'AM04');
        } else if (payment.status === 'ACSP') {
          await stepPayment(db, payment.id, 'ACSP', 'ACSC', null);
        } else {
          await db.query('update payments set next_step_at = null where id = $1', [payment.id]);
          return true;
        }
        if (options.eventsOn)
          await enqueueNotification(db, payment.client_id, payment.id, 'domestic-payment');
        return true;
      });
      if (!stepped) break;
      done += 1;
    }
    // Sandbox Bank EU's payments: the same loop, their own table and steps (src/xs2a/payments.ts).
    while (await inTransaction(pool, (db) => stepXs2a(db, stepMs))) done += 1;
    return done;
  };

  const loop = async () => {
    while (!stopped) {
      running = tick().catch((error: unknown) => {
        logger.error({ err: error }, 'payment engine pass failed');
        return 0;
      });
      await running;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  void loop();
  return {
    tick,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
