// A missing or wrong supplier setting is an operator's mistake, not a supplier outcome: it throws
// SupplierConfigError when the supplier is built. Messages name variables, never values (secrets).

export class SupplierConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SupplierConfigError";
  }
}
