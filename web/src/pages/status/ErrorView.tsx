import type { PageError, PageErrorKind } from '../../api/page-error.ts';
import { Heading } from '../../components/Heading.tsx';
import { PageShell } from '../../components/PageShell.tsx';

/** Which link the customer opened: the two kinds live for different times. */
export type LinkKind = 'hosted' | 'bank';

const LIFETIME: Record<LinkKind, string> = {
  hosted: 'Links to a payment page are valid for 1 hour.',
  bank: 'Links to the bank page are valid for 30 minutes.',
};

const START_AGAIN = "Go back to the merchant's website to start the payment again.";
/** An expired link is not the end: the shop can send a new one (POST /payments/{id}/link). */
const ASK_FOR_A_NEW_LINK =
  'The shop can send you a new link for this payment: ask them, or go back to their website to start again.';

const texts = (kind: PageErrorKind, link: LinkKind): { title: string; body: string[]; retry: boolean } => {
  switch (kind) {
    case 'LINK_EXPIRED':
      return { title: 'This link has expired', body: [LIFETIME[link], ASK_FOR_A_NEW_LINK], retry: false };
    case 'LINK_INVALID':
      return {
        title: 'This link is not valid',
        body: [
          'The link is incomplete or has been changed. Open it exactly as you received it.',
          START_AGAIN,
        ],
        retry: false,
      };
    case 'PAYMENT_ALREADY_DECIDED':
      return {
        title: 'This payment is already finished',
        body: ['There is nothing more to do on this page.'],
        retry: true,
      };
    case 'MERCHANT_SUSPENDED':
      return {
        title: 'This merchant can’t take payments right now',
        body: [
          'Nothing has been paid, and this payment can’t go ahead for now.',
          'Contact the merchant or go back to their website.',
        ],
        retry: false,
      };
    case 'NOT_FOUND':
      return {
        title: 'Payment not found',
        body: ['We could not find this payment.', START_AGAIN],
        retry: false,
      };
    case 'VALIDATION_FAILED':
      return {
        title: 'This request could not be processed',
        body: ['Something in the request was not accepted.', START_AGAIN],
        retry: true,
      };
    case 'UNREACHABLE':
      return {
        title: 'We can’t reach the payment service',
        body: ['Check your internet connection, then try again. Nothing has been paid yet.'],
        retry: true,
      };
    default:
      return {
        title: 'Something went wrong',
        body: ['The payment service had a problem. Please try again in a moment.'],
        retry: true,
      };
  }
};

interface ErrorViewProps {
  error: PageError;
  link: LinkKind;
  onRetry?: () => void;
}

/** The page for every unhappy path: says what happened and what the customer can do. */
export const ErrorView = ({ error, link, onRetry }: ErrorViewProps) => {
  const { title, body, retry } = texts(error.kind, link);
  return (
    <PageShell variant={link} brand={link === 'bank' ? 'Mock Bank' : 'Secure payment'} title={title}>
      <div className="notice notice--problem" data-error-kind={error.kind}>
        <Heading focusOnShow>{title}</Heading>
        {body.map((line) => (
          <p key={line}>{line}</p>
        ))}
        {retry && onRetry ? (
          <button type="button" className="button button--primary" onClick={onRetry}>
            Try again
          </button>
        ) : null}
      </div>
    </PageShell>
  );
};
