import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatDay } from '../components/format-date.ts';

const HEIGHT = 220;

/**
 * Draws the volume columns into `element` at its width and follows its resizes; returns the
 * cleanup. Its own module so uPlot loads only where the chart is shown.
 */
export const drawVolume = (
  element: HTMLElement,
  days: string[],
  series: Array<{ currency: string; values: number[] }>,
  colours: string[],
): (() => void) => {
  const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000);
  const single = series.length === 1;
  const plot = new uPlot(
    {
      width: Math.max(element.clientWidth, 280),
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          stroke: '#4f5868',
          grid: { show: false },
          values: (_self, ticks) => ticks.map((tick) => formatDay(new Date(tick * 1000).toISOString())),
        },
        { stroke: '#4f5868', grid: { stroke: '#e4e7ed' }, size: 60 },
      ],
      series: [
        {},
        ...series.map(({ currency }, position) => {
          const colour = colours[position % colours.length] as string;
          return single
            ? {
                label: currency,
                stroke: colour,
                fill: colour,
                paths: uPlot.paths.bars?.({ size: [0.7, 40] }),
                points: { show: false },
              }
            : { label: currency, stroke: colour, width: 2, points: { show: true, size: 5 } };
        }),
      ],
    },
    [xs, ...series.map(({ values }) => values)],
    element,
  );
  const resize =
    typeof ResizeObserver === 'function'
      ? new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 280), height: HEIGHT }))
      : null;
  resize?.observe(element);
  return () => {
    resize?.disconnect();
    plot.destroy();
  };
};
