// The row a statement must return (an INSERT ... RETURNING, an aggregate, a row this transaction
// holds locked). No row there is a bug, so it fails loudly here rather than as undefined later.
export function firstRow<T>(rows: readonly T[], statement: string): T {
  const row = rows[0];
  if (row === undefined) throw new Error(`${statement} returned no row`);
  return row;
}
