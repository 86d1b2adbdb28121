import type { PaymentStatus } from '@pis/shared';
import { PAYMENT_STATUS_LABELS, type StatusOutcome, statusOutcome } from '@pis/shared/payment-statuses';

export type StatusTone = 'success' | 'failure' | 'neutral' | 'progress';

const TONES: Record<StatusOutcome, StatusTone> = {
  paid: 'success',
  failed: 'failure',
  stopped: 'neutral',
  'under-way': 'progress',
};

/** How a status reads at a glance: green paid, red failed, grey stopped, amber still moving. */
export const statusTone = (status: PaymentStatus): StatusTone => TONES[statusOutcome(status)];

/** The status as a word (the API's value stays in the details and in the filters' values). */
export const statusLabel = (status: PaymentStatus): string => PAYMENT_STATUS_LABELS[status] ?? status;

/** A payment's service status as a coloured label (the word is always there, never colour alone). */
export const StatusBadge = ({ status }: { status: PaymentStatus }) => (
  <span className={`badge badge--${statusTone(status)}`}>{statusLabel(status)}</span>
);
