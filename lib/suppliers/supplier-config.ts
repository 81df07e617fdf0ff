// Reading supplier settings from the environment. A wrong or missing setting is an operator's
// mistake, not a supplier outcome, so it throws SupplierConfigError at construction time (never on a
// call). Messages name the variable, never its value: some of these values are secrets.

export class SupplierConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SupplierConfigError";
  }
}

type EnvSource = Record<string, string | undefined>;

/** A whole number of milliseconds >= `min`, or `fallback` when the variable is unset or empty. */
export function readMilliseconds(source: EnvSource, name: string, fallback: number, min = 0): number {
  const raw = source[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new SupplierConfigError(`${name} must be a whole number of milliseconds >= ${min}, got "${raw}"`);
  }
  return value;
}

/** The trimmed value of each named variable; throws once, naming every one that is missing. */
export function readRequired<Name extends string>(
  source: EnvSource,
  names: readonly Name[],
  purpose: string,
): Record<Name, string> {
  const values = {} as Record<Name, string>;
  const missing: string[] = [];
  for (const name of names) {
    const value = source[name]?.trim();
    if (value) values[name] = value;
    else missing.push(name);
  }
  if (missing.length > 0) {
    throw new SupplierConfigError(`${purpose} needs ${missing.join(", ")} in the environment (missing or empty).`);
  }
  return values;
}
