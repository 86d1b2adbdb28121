import { formatPreciseTime, formatRelative } from './format-date.ts';

/**
 * A moment as people say it ("5 minutes ago"), with the exact date and time on hover; the
 * `<time>` element carries the machine value.
 */
export const RelativeTime = ({ iso }: { iso: string | null | undefined }) => {
  if (!iso) return <>—</>;
  const exact = formatPreciseTime(iso);
  return (
    <time dateTime={iso} title={exact}>
      {formatRelative(iso)}
    </time>
  );
};
