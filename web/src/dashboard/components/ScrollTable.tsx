import type { ReactNode } from 'react';

type ScrollTableProps = { children: ReactNode } & (
  | { label: string; labelledBy?: never }
  | { labelledBy: string; label?: never }
);

/**
 * A table that scrolls sideways inside its own region on a phone instead of widening the page;
 * the region is focusable so keyboard users can scroll it too.
 */
export const ScrollTable = ({ label, labelledBy, children }: ScrollTableProps) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
  <section className="table-scroll" tabIndex={0} aria-label={label} aria-labelledby={labelledBy}>
    <table className="table">{children}</table>
  </section>
);
