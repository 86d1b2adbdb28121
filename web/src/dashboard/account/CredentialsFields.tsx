import type { DashboardError } from '../api/dashboard-error.ts';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { TextField } from '../components/TextField.tsx';

interface CredentialsFieldsProps {
  email: string;
  password: string;
  onEmail: (email: string) => void;
  onPassword: (password: string) => void;
  /** `new-password` on sign-up lets password managers offer a strong one. */
  passwordAutoComplete: 'current-password' | 'new-password';
  passwordHint?: string;
  error: DashboardError | null;
  pending: boolean;
  submitLabel: string;
  pendingLabel: string;
}

/** The end of both account forms: Email, Password, the form's problem and its button. */
export const CredentialsFields = ({
  email,
  password,
  onEmail,
  onPassword,
  passwordAutoComplete,
  passwordHint,
  error,
  pending,
  submitLabel,
  pendingLabel,
}: CredentialsFieldsProps) => (
  <>
    <TextField
      label="Email"
      type="email"
      autoComplete="email"
      value={email}
      onChange={(event) => onEmail(event.target.value)}
      error={fieldError(error, 'email')}
      required
    />
    <TextField
      label="Password"
      type="password"
      autoComplete={passwordAutoComplete}
      hint={passwordHint}
      value={password}
      onChange={(event) => onPassword(event.target.value)}
      error={fieldError(error, 'password')}
      required
    />
    <FormProblem error={error} fields={['email', 'password']} />
    <button type="submit" className="button button--primary button--block" disabled={pending}>
      {pending ? pendingLabel : submitLabel}
    </button>
  </>
);
