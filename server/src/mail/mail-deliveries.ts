import { randomId } from '@pis/shared';
import type { Clock } from '../clock.ts';
import { MailDelivery } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { MailMessage, MailPurpose, QueuedMail } from './mail-message.ts';
import type { MailSender } from './smtp-transport.ts';

const ERROR_LENGTH = 500;

/**
 * The delivery row of a mail about to be queued (status `queued`, no message: the job carries
 * it); resolves to its id (jobs/pg-boss-mail-outbox.ts then sends the job).
 */
export async function recordQueuedMail(
  deps: { em: EntityManager; clock: Clock },
  purpose: MailPurpose,
  message: MailMessage,
): Promise<string> {
  const now = deps.clock.now();
  const deliveryId = randomId('mail');
  await deps.em.fork().insert(MailDelivery, {
    id: deliveryId,
    purpose,
    toAddress: message.to,
    status: 'queued',
    attempts: 0,
    lastError: null,
    createdAt: now,
    updatedAt: now,
  });
  return deliveryId;
}

/** What the mail jobs do (jobs/job-definition.ts `JobDeps.mail`). */
export interface MailJobDeps {
  deliver(payload: QueuedMail): Promise<void>;
  failed(deliveryId: string): Promise<void>;
}

export function mailJobDeps(deps: {
  em: EntityManager;
  clock: Clock;
  logger: Logger;
  sender: MailSender;
}): MailJobDeps {
  const record = (id: string, changes: Partial<MailDelivery>) =>
    deps.em.fork().nativeUpdate(MailDelivery, { id }, { ...changes, updatedAt: deps.clock.now() });
  const attemptsOf = async (id: string) =>
    (await deps.em.fork().findOne(MailDelivery, { id }, { fields: ['attempts'] }))?.attempts ?? 0;
  return {
    deliver: async ({ deliveryId, message }) => {
      const attempts = (await attemptsOf(deliveryId)) + 1;
      try {
        await deps.sender.send(message);
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        await record(deliveryId, { attempts, lastError: text.slice(0, ERROR_LENGTH) });
        deps.logger.warn({ deliveryId, attempts, err: text }, 'mail not sent yet; pg-boss retries it');
        throw error;
      }
      await record(deliveryId, { status: 'sent', attempts, lastError: null });
    },
    failed: async (deliveryId) => {
      const row = await deps.em.fork().findOne(MailDelivery, { id: deliveryId });
      // An error line is what an operator's alerting sees; the CLI lists the rows. The line first:
      // a row marked failed has always been said (a crash in between says it twice, never not).
      deps.logger.error(
        { deliveryId, purpose: row?.purpose, attempts: row?.attempts, lastError: row?.lastError },
        'mail could not be sent after every retry (npm run admin -- mail:failures)',
      );
      await record(deliveryId, { status: 'failed' });
    },
  };
}

/** Mail that could not be sent, newest first, for the operator CLI. */
export async function failedMail(em: EntityManager, limit: number) {
  const rows = await em
    .fork()
    .find(MailDelivery, { status: 'failed' }, { orderBy: { createdAt: 'desc' }, limit });
  return rows.map((row) => ({
    id: row.id,
    purpose: row.purpose,
    to: row.toAddress,
    attempts: row.attempts,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    failedAt: row.updatedAt.toISOString(),
  }));
}
