import type { JobDefinition } from './job-definition.ts';
import { mailFailedJob, mailSendJob } from './mail-jobs.ts';
import { paymentDueJob } from './payment-due-job.ts';
import { providerClaimJob } from './provider-claim-job.ts';
import { providerPollJob } from './provider-poll-job.ts';

/** Every background job. A new job is one definition file and one entry here. */
// mail.failed before mail.send: a queue's dead-letter queue must exist when it is created.
export const JOBS: readonly JobDefinition[] = [
  paymentDueJob,
  providerClaimJob,
  providerPollJob,
  mailFailedJob,
  mailSendJob,
];
