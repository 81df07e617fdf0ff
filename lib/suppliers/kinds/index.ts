// The supplier kinds: the one list. A kind added here is a value SUPPLIER may take (lib/config/env.ts),
// a kind a supplier account may have (the suppliers table's foreign key to supplier_kinds, which the
// migrate command fills from this list), a form on the Suppliers page, and built by the one path
// that builds suppliers (supplier-account.ts). Its module says the rest (supplier-kind.ts).
import { h2hKind } from "./h2h";
import { sandboxKind } from "./sandbox";
import type { SupplierKind } from "./supplier-kind";

/** Every kind, in the order the page and messages list them. */
export function supplierKinds(): readonly SupplierKind[] {
  // Read when asked, never while modules load: env.ts validates SUPPLIER with it, and kinds import env.ts.
  return [sandboxKind, h2hKind];
}

/** The kind named `name`, or undefined. */
export function supplierKind(name: string): SupplierKind | undefined {
  return supplierKinds().find((kind) => kind.name === name);
}

/** "sandbox, h2h": for messages that list what a name may be. */
export function supplierKindNames(): string {
  return supplierKinds()
    .map((kind) => kind.name)
    .join(", ");
}

export { SANDBOX_KIND } from "./sandbox";
