// Reading the query string of a dashboard page: one value per name, trimmed, never an array.
export type PageSearchParams = Promise<Record<string, string | string[] | undefined>>;

export function single(params: Record<string, string | string[] | undefined>, name: string): string {
  const value = params[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? "";
}

/** A positive int4 cursor, or undefined. */
export function cursorParam(params: Record<string, string | string[] | undefined>, name: string): number | undefined {
  const text = single(params, name);
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= 1 && value <= 2_147_483_647 ? value : undefined;
}

/** The query string for a link, without empty values. */
export function queryString(values: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== "") search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}
