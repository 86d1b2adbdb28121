import { type ReactNode, useEffect, useId, useRef } from 'react';
import type { DashboardError } from '../api/dashboard-error.ts';
import { FormProblem } from './FormProblem.tsx';

interface ConfirmDialogProps {
  /** The question, naming what is acted on: "Cancel £42.00 to Acme Ltd?" */
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  /** The way out that changes nothing: "Keep payment". */
  keepLabel: string;
  tone: 'danger' | 'primary';
  pending: boolean;
  /** The failure of the confirmed action, shown here, next to what caused it. */
  error: DashboardError | null;
  onConfirm: () => void;
  onKeep: () => void;
}

/**
 * Asks before an action that cannot be undone, in the browser's own modal `<dialog>`: it is
 * announced as a dialog with its title and text, keeps the keyboard inside until answered,
 * closes with Escape, and gives the focus back to the button that opened it. The focus starts
 * on the way out, so an Enter pressed by habit changes nothing.
 */
export const ConfirmDialog = (props: ConfirmDialogProps) => {
  const ids = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const { onKeep, pending } = props;

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const element = dialog.current;
    element?.showModal();
    keep.current?.focus();
    return () => {
      // Back to the opener, unless the page has already put the focus somewhere on purpose.
      const focusInside = element?.contains(document.activeElement) ?? false;
      element?.close();
      if (focusInside || document.activeElement === document.body) opener?.focus?.();
    };
  }, []);

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={`${ids}-title`}
      aria-describedby={`${ids}-text`}
      onCancel={(event) => {
        // Escape: the same as the way out, but not while the action is under way.
        event.preventDefault();
        if (!pending) onKeep();
      }}
    >
      <h2 id={`${ids}-title`} className="dialog__title">
        {props.title}
      </h2>
      <div id={`${ids}-text`}>{props.children}</div>
      <FormProblem error={props.error} />
      <div className="actions">
        <button
          type="button"
          className={`button button--${props.tone}`}
          onClick={props.onConfirm}
          disabled={pending}
        >
          {pending ? props.pendingLabel : props.confirmLabel}
        </button>
        <button type="button" className="button" ref={keep} onClick={onKeep} disabled={pending}>
          {props.keepLabel}
        </button>
      </div>
    </dialog>
  );
};
