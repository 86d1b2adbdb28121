import { QueuedMail } from '../mail/mail-message.ts';
import { defineJob } from './job-definition.ts';

export const MAIL_FAILED_QUEUE = 'mail.failed';

/**
 * A mail that exhausted its retries lands here (pg-boss's dead-letter queue): its delivery row
 * is marked failed and an error is logged, which is what an operator watches. Created before
 * `mail.send` (JOBS order), which names it.
 */
export const mailFailedJob = defineJob({
  name: MAIL_FAILED_QUEUE,
  payload: QueuedMail,
  queue: { policy: 'standard', retryLimit: 5, retryDelay: 10, deleteAfterSeconds: 60 * 60 },
  work: { batchSize: 1, pollingIntervalSeconds: 2 },
  handler: async ([payload], deps) => {
    if (payload) await deps.mail.failed(payload.deliveryId);
  },
});

/**
 * Sends one mail over SMTP. Retried with backoff for about an hour (a mail server being down
 * for a while is ordinary), then dead-lettered to `mail.failed`. One mail per batch, so one bad
 * address does not hold back the others. A settled job is deleted after an hour: the link it
 * carries is not kept at rest longer than that.
 */
export const mailSendJob = defineJob({
  name: 'mail.send',
  payload: QueuedMail,
  queue: {
    policy: 'standard',
    expireInSeconds: 60,
    retryLimit: 8,
    retryDelay: 15,
    retryBackoff: true,
    retryDelayMax: 15 * 60,
    deadLetter: MAIL_FAILED_QUEUE,
    deleteAfterSeconds: 60 * 60,
  },
  work: { batchSize: 1, localConcurrency: 2, pollingIntervalSeconds: 1 },
  handler: async ([payload], deps) => {
    if (payload) await deps.mail.deliver(payload);
  },
});
