// Small inline SVG charts rendered on the server: no chart library, no client JavaScript. Every
// bar and point carries a tooltip (<title>) with its exact numbers, and each chart's numbers are
// also in the table under the charts, so nothing is read off a bar's height.

interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

export interface ChartColumn {
  /** Short axis label ("13:00", "Mon 22"). */
  label: string;
  /** Long label for tooltips ("2026-11-22 13:00–14:00 UTC"). */
  title: string;
  values: Record<string, number | null>;
}

interface ChartProps {
  title: string;
  series: ChartSeries[];
  columns: ChartColumn[];
  formatValue: (value: number) => string;
  /** Show every n-th axis label. */
  labelEvery?: number;
  /** Fixed top of the scale (e.g. 1 for a rate). */
  yMax?: number;
  /** Values are counts: whole-number axis steps. */
  integer?: boolean;
}

const WIDTH = 520;
const HEIGHT = 170;
const MARGIN = { left: 52, right: 8, top: 10, bottom: 22 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/**
 * The top of the scale: four equal steps of a "round" size (1, 2, 2.5 or 5 × 10^k) reaching at
 * least `value`. With `integer`, steps are whole numbers, so a count axis never reads "2.5 orders".
 */
function scaleTop(value: number, integer: boolean): number {
  if (!(value > 0)) return integer ? 4 : 1;
  const wanted = value / 4;
  if (integer && wanted <= 5) return 4 * Math.ceil(wanted);
  const magnitude = 10 ** Math.floor(Math.log10(wanted));
  for (const step of [1, 2, 2.5, 5, 10]) {
    const size = step * magnitude;
    if (size >= wanted && (!integer || Number.isInteger(size))) return 4 * size;
  }
  return 40 * magnitude;
}

function Axes({
  top,
  formatValue,
  columns,
  labelEvery,
}: {
  top: number;
  formatValue: (v: number) => string;
  columns: ChartColumn[];
  labelEvery: number;
}) {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const step = PLOT_W / Math.max(columns.length, 1);
  return (
    <g>
      {ticks.map((tick) => {
        const y = MARGIN.top + PLOT_H * (1 - tick);
        return (
          <g key={tick}>
            <line className="grid" x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y} y2={y} />
            <text x={MARGIN.left - 6} y={y + 3} textAnchor="end">
              {formatValue(top * tick)}
            </text>
          </g>
        );
      })}
      {columns.map((column, index) =>
        index % labelEvery === 0 ? (
          <text key={index} x={MARGIN.left + step * index + step / 2} y={HEIGHT - 6} textAnchor="middle">
            {column.label}
          </text>
        ) : null,
      )}
    </g>
  );
}

function tooltip(column: ChartColumn, series: ChartSeries[], formatValue: (v: number) => string): string {
  return [
    column.title,
    ...series.map((s) => `${s.label}: ${column.values[s.key] === null ? "—" : formatValue(column.values[s.key]!)}`),
  ].join("\n");
}

function Legend({ series }: { series: ChartSeries[] }) {
  return (
    <ul className="legend">
      {series.map((s) => (
        <li key={s.key}>
          {/* A shape, not a style attribute: the dashboard's Content-Security-Policy refuses those. */}
          <svg className="swatch" viewBox="0 0 10 10" aria-hidden="true">
            <rect width="10" height="10" rx="2" fill={s.color} />
          </svg>
          {s.label}
        </li>
      ))}
    </ul>
  );
}

/** Bars, stacked when there are several series (values must be non-negative). */
export function BarChart({ title, series, columns, formatValue, labelEvery = 1, yMax, integer = false }: ChartProps) {
  const totals = columns.map((column) => series.reduce((sum, s) => sum + (column.values[s.key] ?? 0), 0));
  const top = yMax ?? scaleTop(Math.max(0, ...totals), integer);
  const step = PLOT_W / Math.max(columns.length, 1);
  const barWidth = Math.max(step * 0.72, 1);
  return (
    <figure className="panel chart-panel">
      <h3>{title}</h3>
      <svg className="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
        <Axes top={top} formatValue={formatValue} columns={columns} labelEvery={labelEvery} />
        {columns.map((column, index) => {
          let base = MARGIN.top + PLOT_H;
          const x = MARGIN.left + step * index + (step - barWidth) / 2;
          return (
            <g key={index}>
              <title>{tooltip(column, series, formatValue)}</title>
              {/* A transparent full-height target, so the tooltip also works on empty columns. */}
              <rect x={MARGIN.left + step * index} y={MARGIN.top} width={step} height={PLOT_H} fill="transparent" />
              {series.map((s) => {
                const value = column.values[s.key] ?? 0;
                if (value <= 0) return null;
                const height = (value / top) * PLOT_H;
                base -= height;
                return <rect key={s.key} x={x} y={base} width={barWidth} height={height} fill={s.color} />;
              })}
            </g>
          );
        })}
      </svg>
      {series.length > 1 ? <Legend series={series} /> : null}
    </figure>
  );
}

/** Lines with a dot per known value; a missing value (null) breaks the line instead of faking zero. */
export function LineChart({ title, series, columns, formatValue, labelEvery = 1, yMax, integer = false }: ChartProps) {
  const all = columns.flatMap((column) => series.map((s) => column.values[s.key] ?? 0));
  const top = yMax ?? scaleTop(Math.max(0, ...all), integer);
  const step = PLOT_W / Math.max(columns.length, 1);
  const x = (index: number) => MARGIN.left + step * index + step / 2;
  const y = (value: number) => MARGIN.top + PLOT_H * (1 - value / top);
  return (
    <figure className="panel chart-panel">
      <h3>{title}</h3>
      <svg className="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={title}>
        <Axes top={top} formatValue={formatValue} columns={columns} labelEvery={labelEvery} />
        {series.map((s) => {
          const segments: string[][] = [[]];
          columns.forEach((column, index) => {
            const value = column.values[s.key];
            if (value === null || value === undefined) segments.push([]);
            else segments.at(-1)?.push(`${x(index)},${y(value)}`);
          });
          return (
            <g key={s.key}>
              {segments
                .filter((points) => points.length > 1)
                .map((points, index) => (
                  <polyline key={index} points={points.join(" ")} fill="none" stroke={s.color} strokeWidth={2} />
                ))}
            </g>
          );
        })}
        {columns.map((column, index) => (
          <g key={index}>
            <title>{tooltip(column, series, formatValue)}</title>
            <rect x={MARGIN.left + step * index} y={MARGIN.top} width={step} height={PLOT_H} fill="transparent" />
            {series.map((s) => {
              const value = column.values[s.key];
              return value === null || value === undefined ? null : (
                <circle key={s.key} cx={x(index)} cy={y(value)} r={3} fill={s.color} />
              );
            })}
          </g>
        ))}
      </svg>
      <Legend series={series} />
    </figure>
  );
}
