import type { Payment } from '@pis/shared';
import { formatPreciseTime } from '../components/format-date.ts';
import { StatusBadge, statusTone } from '../components/StatusBadge.tsx';

type HistoryEntry = NonNullable<Payment['statusHistory']>[number];

/** Every status the payment has had, oldest first, as a line of steps with their times. */
export const PaymentTimeline = ({ history }: { history: HistoryEntry[] }) => {
  if (history.length === 0) return <p className="muted">No history recorded.</p>;
  return (
    <ol className="timeline" aria-label="Status history">
      {history.map((entry, position) => {
        const last = position === history.length - 1;
        return (
          <li
            key={`${entry.timestamp}-${entry.status}`}
            className={`timeline__step timeline__step--${statusTone(entry.status)}${last ? ' timeline__step--current' : ''}`}
            aria-current={last ? 'step' : undefined}
          >
            <span className="timeline__dot" aria-hidden="true" />
            <div className="timeline__body">
              <p className="timeline__title">
                <StatusBadge status={entry.status} />{' '}
                <span className="timeline__iso">
                  {entry.isoStatus.code} · {entry.isoStatus.name}
                  {entry.isoStatus.reason
                    ? ` · ${entry.isoStatus.reason.code} ${entry.isoStatus.reason.name}`
                    : ''}
                </span>
              </p>
              <p className="timeline__meta">
                <time dateTime={entry.timestamp}>{formatPreciseTime(entry.timestamp)}</time>
                {entry.provider ? ` · ${entry.provider}` : ''}
              </p>
              {entry.details ? <p className="timeline__details">{entry.details}</p> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
};
