// The dashboard's list table: the scrolling wrapper, a line saying there is nothing when there are
// no rows, and the header row; the caller renders each row (with a key) from `children`.
import type { ReactNode } from "react";

/** A column heading; a `num` column (ids, amounts, counts) is right-aligned like its cells. */
export type Column = string | { label: string; num: true };

export function DataTable<T>({
  label,
  columns,
  rows,
  empty,
  children,
}: {
  /** The table's accessible name. */
  label: string;
  columns: Column[];
  rows: readonly T[];
  /** Shown instead of the table when there are no rows, e.g. "No orders." */
  empty: string;
  children: (row: T) => ReactNode;
}) {
  return (
    <div className="table-wrap">
      {rows.length === 0 ? (
        <p className="empty">{empty}</p>
      ) : (
        <table className="data" aria-label={label}>
          <thead>
            <tr>
              {columns.map((column, index) =>
                typeof column === "string" ? (
                  <th key={index}>{column}</th>
                ) : (
                  <th key={index} className="num">
                    {column.label}
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody>{rows.map((row) => children(row))}</tbody>
        </table>
      )}
    </div>
  );
}
