import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import { recordQueuedMail } from '../mail/mail-deliveries.ts';
import type { MailOutbox } from '../mail/mail-message.ts';
import type { JobQueue } from './job-queue.ts';
import { mailSendJob } from './mail-jobs.ts';

/**
 * The outbox of a process with a job queue: a delivery row (status `queued`, no message), then
 * the `mail.send` job carrying the message. The request that asked for the mail returns as soon
 * as both are written; SMTP happens in a worker.
 */
export function pgBossMailOutbox(deps: { em: EntityManager; clock: Clock; queue: JobQueue }): MailOutbox {
  return {
    queue: async (purpose, message) => {
      const deliveryId = await recordQueuedMail(deps, purpose, message);
      await deps.queue.send(mailSendJob, { deliveryId, message });
    },
  };
}
