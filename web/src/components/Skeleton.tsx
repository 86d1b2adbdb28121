/**
 * Placeholders built from the same elements and classes as what replaces them, with grey bars
 * in place of text: the box sizes match, so nothing moves when data arrives.
 */
export const Skeleton = ({ className = '' }: { className?: string }) => (
  <span className={`skeleton ${className}`} aria-hidden="true" />
);

export const HeadingSkeleton = () => (
  <p className="heading" aria-hidden="true">
    <Skeleton className="skeleton--w60" />
  </p>
);

const ROW_KEYS = ['payee', 'reference', 'bank'];

/** Placeholder of a PaymentSummary, row for row. */
export const SummarySkeleton = ({ rows = 2 }: { rows?: number }) => (
  <div className="summary" aria-hidden="true">
    <p className="summary__label">
      <Skeleton className="skeleton--w30" />
    </p>
    <p className="summary__amount">
      <Skeleton className="skeleton--w40" />
    </p>
    <div className="summary__rows">
      {ROW_KEYS.slice(0, rows).map((row) => (
        <div className="summary__row" key={row}>
          <Skeleton className="skeleton--w80" />
        </div>
      ))}
    </div>
  </div>
);

export const LoadingStatus = ({ label }: { label: string }) => (
  <p role="status" className="visually-hidden">
    {label}
  </p>
);
