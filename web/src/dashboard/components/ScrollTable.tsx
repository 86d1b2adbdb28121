import { type ReactNode, useLayoutEffect, useRef } from 'react';

type ScrollTableProps = { children: ReactNode } & (
  | { label: string; labelledBy?: never }
  | { labelledBy: string; label?: never }
);

/**
 * Gives every body cell its column's name (`data-label`), read from the header row after each
 * render, so a phone can show each row as a stack of "name: value" lines (dashboard.css) with
 * no page needing to repeat its column names.
 */
const labelCells = (table: HTMLTableElement) => {
  const names = Array.from(table.tHead?.rows[0]?.cells ?? [], (cell) => cell.textContent?.trim() ?? '');
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      Array.from(row.cells).forEach((cell, index) => {
        const name = names[index] ?? '';
        if (cell.dataset.label !== name) cell.dataset.label = name;
      });
    }
  }
};

/**
 * A table that never widens the page: on a phone its rows become stacked cards of "column:
 * value" lines; from 40rem wide it is a table again, and scrolls sideways inside its own region
 * if it must. The region is focusable so keyboard users can scroll it too.
 */
export const ScrollTable = ({ label, labelledBy, children }: ScrollTableProps) => {
  const table = useRef<HTMLTableElement>(null);
  useLayoutEffect(() => {
    if (table.current) labelCells(table.current);
  });
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section className="table-scroll" tabIndex={0} aria-label={label} aria-labelledby={labelledBy}>
      <table className="table table--stack" ref={table}>
        {children}
      </table>
    </section>
  );
};
