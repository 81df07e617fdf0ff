// Which supplier answers a call. Top-ups go to the supplier named by the game line's `supplier`
// column: getSupplier(line.supplier). Verify and redeem are not tied to a line: getSupplier() asks
// the one named by env SUPPLIER (default "sandbox").
//
// One instance per name per process: the sandbox's memory of references (see sandbox-supplier.ts)
// must be shared by every caller, and the H2H client reads its environment once. A name whose
// configuration is missing throws SupplierConfigError on every call until it is fixed, rather than
// answering "unavailable": that is an operator's mistake, and it should be loud.
import { createH2hSupplierFromEnv } from "./h2h-supplier";
import { createSandboxSupplier, sandboxOptionsFromEnv } from "./sandbox-supplier";
import { SupplierConfigError } from "./supplier-config";
import type { Supplier } from "./types";

export { SupplierConfigError } from "./supplier-config";

const factories = {
  sandbox: () => createSandboxSupplier(sandboxOptionsFromEnv()),
  h2h: () => createH2hSupplierFromEnv(),
} as const satisfies Record<string, () => Supplier>;

export type SupplierName = keyof typeof factories;
export const supplierNames = Object.keys(factories) as SupplierName[];
export const DEFAULT_SUPPLIER: SupplierName = "sandbox";

const instances = new Map<SupplierName, Supplier>();

export function isSupplierName(name: string): name is SupplierName {
  return Object.hasOwn(factories, name);
}

/** The supplier for verify and redeem: env SUPPLIER, else "sandbox". */
export function defaultSupplierName(): string {
  return process.env.SUPPLIER?.trim() || DEFAULT_SUPPLIER;
}

export function getSupplier(name: string = defaultSupplierName()): Supplier {
  const normalised = name.trim().toLowerCase();
  if (!isSupplierName(normalised)) {
    throw new SupplierConfigError(`Unknown supplier "${name}": expected one of ${supplierNames.join(", ")}.`);
  }
  let supplier = instances.get(normalised);
  if (!supplier) {
    supplier = factories[normalised]();
    instances.set(normalised, supplier);
  }
  return supplier;
}
