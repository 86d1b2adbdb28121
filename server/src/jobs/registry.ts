import type { JobDefinition } from './job-definition.ts';
import { paymentDueJob } from './payment-due-job.ts';

/** Every background job. A new job is one definition file and one entry here. */
export const JOBS: readonly JobDefinition[] = [paymentDueJob];
