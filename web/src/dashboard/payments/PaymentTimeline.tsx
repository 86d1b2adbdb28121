import type { Payment } from '@pis/shared';
import { formatPreciseTime, formatRelative } from '../components/format-date.ts';
import { IsoCode } from '../components/IsoCode.tsx';
import { isoMeaning, isoWords, reasonMeaning, reasonWords } from '../components/iso-meaning.ts';
import { StatusBadge, statusTone } from '../components/StatusBadge.tsx';

type HistoryEntry = NonNullable<Payment['statusHistory']>[number];
type Actor = NonNullable<HistoryEntry['actor']>;

/** Who made an entry, in words (the API's `actor`). */
export const actorText = (actor: Actor): string => {
  switch (actor.type) {
    case 'member':
      return `by ${actor.name ?? 'a team member'}`;
    case 'customer':
      return 'by the customer';
    case 'bank':
      return 'by the bank';
    case 'expiry':
      return 'by the 24-hour expiry';
    case 'api_key':
      return `by API key ${actor.name ? `${actor.name}…` : ''}`.trim();
  }
};

/** Who moved the payment to its current status, in words, when the history says. */
export const whoFinished = (payment: Pick<Payment, 'status' | 'statusHistory'>): string | undefined => {
  const actor = payment.statusHistory?.findLast((entry) => entry.status === payment.status)?.actor;
  return actor ? actorText(actor) : undefined;
};

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
                  <IsoCode code={isoWords(entry.isoStatus)} meaning={isoMeaning(entry.isoStatus)} />
                  {entry.isoStatus.reason ? (
                    <>
                      {' · '}
                      <IsoCode
                        code={
                          reasonWords(entry.isoStatus, entry.actor ? actorText(entry.actor) : undefined) ??
                          entry.isoStatus.reason.name
                        }
                        meaning={reasonMeaning(entry.isoStatus.reason)}
                      />
                    </>
                  ) : null}
                </span>
              </p>
              <p className="timeline__meta">
                <time dateTime={entry.timestamp} title={formatRelative(entry.timestamp)}>
                  {formatPreciseTime(entry.timestamp)}
                </time>
                {entry.provider ? ` · ${entry.provider}` : ''}
                {entry.actor ? ` · ${actorText(entry.actor)}` : ''}
                {entry.simulated ? (
                  <>
                    {' · '}
                    <span className="timeline__simulated">Simulated (test clock)</span>
                  </>
                ) : null}
              </p>
              {entry.details ? <p className="timeline__details">{entry.details}</p> : null}
            </div>
          </li>
        );
      })}
    </ol>
  );
};
