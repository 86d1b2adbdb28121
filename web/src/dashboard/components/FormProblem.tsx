import type { DashboardError } from '../api/dashboard-error.ts';

/**
 * The failure of a form or action, announced when it appears (role="alert"). Field problems
 * are listed again here so a screen reader hears them all at once.
 */
export const FormProblem = ({ error }: { error: DashboardError | null }) => {
  if (!error) return <div role="alert" className="form-problem--empty" />;
  return (
    <div role="alert" className="inline-problem form-problem">
      <p>{error.message}</p>
      {error.details.length > 0 ? (
        <ul>
          {error.details.map((detail) => (
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
