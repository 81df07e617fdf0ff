// The hot path's raw SQL reads rows straight into camelCase records typed from Prisma's models
// (lib/orders/order-record.ts, ...). A record's column map names the column (or expression) behind
// each field; the select list aliases each one to its field (`o.public_id AS "publicId"`), so pg
// hands back the record itself and no code maps rows field by field. The map is typed against the
// record, so a field added to the record without its column fails the typecheck.

/** For each field of T, its column name, or an SQL expression (taken as written, never prefixed). */
export type ColumnMap<T> = { readonly [K in keyof T]-?: string };

const PLAIN_COLUMN = /^[a-z_][a-z0-9_]*$/;

/** `alias.column AS "field", ...` for every field of the map (alias omitted: bare column names). */
export function selectList<T>(columns: ColumnMap<T>, alias?: string): string {
  return Object.entries<string>(columns)
    .map(([field, column]) => `${alias && PLAIN_COLUMN.test(column) ? `${alias}.` : ""}${column} AS "${field}"`)
    .join(", ");
}

/** Some fields of a column map, their columns qualified by a table alias: for a join's select list. */
export function qualifiedColumns<T, K extends keyof T>(
  columns: ColumnMap<T>,
  alias: string,
  fields: readonly K[],
): ColumnMap<Pick<T, K>> {
  return Object.fromEntries(fields.map((field) => [field, `${alias}.${columns[field]}`])) as ColumnMap<Pick<T, K>>;
}
