import type { VolumeDay } from '@pis/shared';
import { useEffect, useId, useRef } from 'react';
import { formatAmount } from '../../format/money.ts';
import { formatDay } from '../components/format-date.ts';

interface VolumeChartProps {
  /** Days with payments in the window, any order; missing days are drawn as zero. */
  volume: VolumeDay[];
  days: string[];
}

const COLOURS = ['#0b57d0', '#146c2e', '#b3261e', '#7a4fb0', '#8a5a00'];

/** Amounts per currency, one column per day (zero where nothing was paid). */
export const volumeSeries = (volume: VolumeDay[], days: string[]) => {
  const currencies = [...new Set(volume.map((entry) => entry.currency))].sort();
  const index = new Map(days.map((day, position) => [day, position]));
  const series = currencies.map((currency) => {
    const values = days.map(() => 0);
    for (const entry of volume) {
      const position = index.get(entry.day.slice(0, 10));
      // For drawing only: the figures shown as text stay decimal strings.
      if (entry.currency === currency && position !== undefined)
        values[position] = (values[position] ?? 0) + Number(entry.value);
    }
    return { currency, values };
  });
  return series;
};

/**
 * Payment volume over the window as a chart (uPlot, loaded with this page only), with the same
 * numbers as a table for screen readers and for anyone who wants the figures.
 */
export const VolumeChart = ({ volume, days }: VolumeChartProps) => {
  const target = useRef<HTMLDivElement>(null);
  const captionId = useId();
  const series = volumeSeries(volume, days);

  // biome-ignore lint/correctness/useExhaustiveDependencies: redrawn when the data changes, keyed by its JSON
  useEffect(() => {
    const element = target.current;
    if (!element || series.length === 0) return;
    let disposed = false;
    let cleanup = () => {};
    import('./draw-volume.ts').then(
      ({ drawVolume }) => {
        if (!disposed) cleanup = drawVolume(element, days, series, COLOURS);
      },
      () => {
        // No chart (an old browser, a test DOM without canvas): the table below has the numbers.
      },
    );
    return () => {
      disposed = true;
      cleanup();
    };
  }, [JSON.stringify(volume), days.join()]);

  if (series.length === 0) {
    return (
      <p className="muted">No payments in the last {days.length} days yet. Create one to see it here.</p>
    );
  }

  const rows = [...volume].sort((a, b) => b.day.localeCompare(a.day) || a.currency.localeCompare(b.currency));
  return (
    <figure className="chart" aria-labelledby={captionId}>
      <figcaption id={captionId} className="chart__caption">
        Payment volume per day, last {days.length} days
        {series.length === 1 ? ` (${series[0]?.currency})` : ''}
        {series.length > 1 ? (
          <span className="chart__legend">
            {series.map(({ currency }, position) => (
              <span key={currency} className="chart__key">
                <span
                  className="chart__swatch"
                  style={{ background: COLOURS[position % COLOURS.length] }}
                  aria-hidden="true"
                />
                {currency}
              </span>
            ))}
          </span>
        ) : null}
      </figcaption>
      <div ref={target} className="chart__plot" aria-hidden="true" />
      <details className="chart__figures">
        <summary>Show the figures</summary>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Volume</th>
              <th scope="col">Payments</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((entry) => (
              <tr key={`${entry.day}-${entry.currency}`}>
                <td>{formatDay(entry.day)}</td>
                <td>{formatAmount(entry.value, entry.currency)}</td>
                <td>{entry.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
};
