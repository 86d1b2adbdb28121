import { type FormEvent, useId } from 'react';
import { Heading } from '../../components/Heading.tsx';
import { HeadingSkeleton, Skeleton } from '../../components/Skeleton.tsx';

/** Practice credentials, filled in for the customer: the Mock bank accepts any details. */
const TEST_USER = 'mock.customer';
const TEST_PASSWORD = 'practice-only';

interface LoginStepProps {
  bankLabel: string;
  /** "Acme Shop asks you to pay €25.00": why the customer is here. */
  request: string;
  onLogin: () => void;
}

export const LoginStep = ({ bankLabel, request, onLogin }: LoginStepProps) => {
  const ids = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onLogin();
  };
  return (
    <form className="login" onSubmit={submit} aria-labelledby={`${ids}-title`}>
      <Heading id={`${ids}-title`}>Log in to {bankLabel}</Heading>
      <p>{request}</p>
      <p className="muted">Test details are filled in. Any details are accepted.</p>
      <div className="field">
        <label htmlFor={`${ids}-user`}>Customer ID</label>
        <input id={`${ids}-user`} name="username" autoComplete="off" defaultValue={TEST_USER} />
      </div>
      <div className="field">
        <label htmlFor={`${ids}-password`}>Password</label>
        <input
          id={`${ids}-password`}
          name="password"
          type="password"
          autoComplete="off"
          defaultValue={TEST_PASSWORD}
        />
      </div>
      <button type="submit" className="button button--primary button--block">
        Log in
      </button>
    </form>
  );
};

/** The login form's shape while the payment loads. */
export const LoginSkeleton = () => (
  <div className="login" aria-hidden="true">
    <HeadingSkeleton />
    <p>
      <Skeleton className="skeleton--w60" />
    </p>
    <p className="muted">
      <Skeleton className="skeleton--w80" />
    </p>
    {[0, 1].map((field) => (
      <div className="field" key={field}>
        <span className="field__label">
          <Skeleton className="skeleton--w30" />
        </span>
        <span className="skeleton skeleton--input" />
      </div>
    ))}
    <span className="skeleton skeleton--button" />
  </div>
);
