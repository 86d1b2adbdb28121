import { TERMINAL_STATUSES as SHARED_TERMINAL_STATUSES, isTerminal as sharedIsTerminal } from '@pis/shared';
import type { PaymentStatus, TerminalStatus } from './types.ts';

/** The finished statuses, after which a payment never changes: COMPLETED, FAILED, CANCELLED, EXPIRED. */
export const TERMINAL_STATUSES: readonly TerminalStatus[] = SHARED_TERMINAL_STATUSES;

/** Whether a payment in this status is finished (the service's own rule, from its state machine). */
export const isTerminal = (status: PaymentStatus): status is TerminalStatus => sharedIsTerminal(status);
