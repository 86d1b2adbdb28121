import type { PaymentStatus } from '@pis/shared';
import { isTerminal } from '@pis/shared/payment-statuses';

/** How a status reads at a glance: done, stopped, or still moving. */
export const statusTone = (status: PaymentStatus): 'success' | 'failure' | 'progress' =>
  status === 'COMPLETED' ? 'success' : isTerminal(status) ? 'failure' : 'progress';

/** A payment's service status as a coloured label (the word is always there, never colour alone). */
export const StatusBadge = ({ status }: { status: PaymentStatus }) => (
  <span className={`badge badge--${statusTone(status)}`}>{status}</span>
);
