// A line chart of per-day or per-hour series, drawn by uPlot on a canvas. The numbers are also
// in a table beside every chart, for screen readers and keyboard users.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'preact/hooks';

export interface Series { label: string; values: number[]; color: string }

export function LineChart({ title, times, series, height = 220 }: { title: string; times: number[]; series: Series[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const plot = new uPlot({
      title,
      width: Math.max(320, element.clientWidth),
      height,
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2 }))],
      axes: [{}, { size: 60 }],
      scales: { x: { time: true } },
    }, [times, ...series.map((s) => s.values)], element);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, element.clientWidth), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [title, times, series, height]);
  return <div class="chart" ref={box} role="img" aria-label={`${title} chart; the figures are in the table below`} />;
}
