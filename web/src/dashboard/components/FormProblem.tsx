import type { DashboardError } from '../api/dashboard-error.ts';

interface FormProblemProps {
  error: DashboardError | null;
  /**
   * The fields this form shows their own message under. Their messages are not repeated here
   * (a failure shows once, next to what caused it); the summary only names them, so a screen
   * reader hears at once what to fix. A problem with any other field is written out in full.
   */
  fields?: readonly string[];
}

/** The failure of a form or action, announced when it appears (role="alert"). */
export const FormProblem = ({ error, fields = [] }: FormProblemProps) => {
  if (!error) return <div role="alert" className="form-problem--empty" />;
  const beside = error.details.filter((detail) => fields.includes(detail.field));
  const elsewhere = error.details.filter((detail) => !fields.includes(detail.field));
  const named = [...new Set(beside.map((detail) => fieldLabel(detail.field)))];
  return (
    <div role="alert" className="inline-problem form-problem">
      <p>{named.length > 0 ? `Check ${named.join(', ')}: see the message under each.` : error.message}</p>
      {elsewhere.length > 0 ? (
        <ul>
          {elsewhere.map((detail) => (
            <li key={`${detail.field}:${detail.message}`}>
              {fieldLabel(detail.field)} {detail.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

const FIELD_LABELS: Record<string, string> = {
  businessName: 'Business name',
  email: 'Email',
  password: 'Password',
  name: 'Name',
  permissions: 'Permissions',
  expiresAt: 'Expiry',
  'payment.amount.value': 'Amount',
  'payment.amount.currency': 'Currency',
  'payment.amount': 'Amount',
  'payment.toAccount.accountName': 'Payee name',
  'payment.toAccount.sortCode': 'Sort code',
  'payment.toAccount.accountNumber': 'Account number',
  'payment.toAccount.iban': 'IBAN',
  'payment.reference': 'Reference',
  'payment.bankId': 'Bank',
  'account.accountName': 'Payee name',
  'account.sortCode': 'Sort code',
  'account.accountNumber': 'Account number',
  'account.iban': 'IBAN',
  label: 'Label',
  'payment.mockBank.completeAfterSeconds': 'Seconds',
};

/**
 * The form's own word for a field the server names by its input key. A list's entries
 * (`origins.1`, from a box of one entry a line) are named by their line, counted from 1.
 */
export const fieldLabel = (field: string): string => {
  const index = /^origins\.(\d+)$/.exec(field)?.[1];
  return index === undefined ? (FIELD_LABELS[field] ?? field) : `Line ${Number(index) + 1}:`;
};

/** The message for one field of a VALIDATION_FAILED answer, if any. */
export const fieldError = (error: DashboardError | null, field: string): string | undefined =>
  error?.details.find((detail) => detail.field === field)?.message;
