import type { JobDefinition } from './job-definition.ts';
import { paymentDueJob } from './payment-due-job.ts';
import { providerClaimJob } from './provider-claim-job.ts';
import { providerPollJob } from './provider-poll-job.ts';

/** Every background job. A new job is one definition file and one entry here. */
export const JOBS: readonly JobDefinition[] = [paymentDueJob, providerClaimJob, providerPollJob];
