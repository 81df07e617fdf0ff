// Which supplier answers a call: a top-up goes to its game line's `supplier`; verify and redeem,
// tied to no line, go to SUPPLIER. One instance per name per process, because the sandbox's memory
// of references must be shared by every caller. A name whose configuration is missing throws
// SupplierConfigError on every call rather than answering "unavailable": an operator's mistake is loud.
import { env, SUPPLIER_NAMES, type Env, type SupplierName } from "../config/env";
import { createH2hSupplier, h2hConfigFromEnv } from "./h2h-supplier";
import { createSandboxSupplier } from "./sandbox-supplier";
import { sandboxServesLiveOrders } from "../config/sandbox-serves-live-orders";
import { SupplierConfigError } from "./supplier-config";
import type { Supplier } from "./types";

export { SupplierConfigError } from "./supplier-config";

type SupplierSettings = Pick<Env, "sandbox" | "h2h">;

const factories: Record<SupplierName, (settings: SupplierSettings) => Supplier> = {
  sandbox: (settings) => createSandboxSupplier(settings.sandbox),
  h2h: (settings) => createH2hSupplier(h2hConfigFromEnv(settings.h2h)),
};

export type { SupplierName } from "../config/env";
export const supplierNames: readonly SupplierName[] = SUPPLIER_NAMES;

const instances = new Map<SupplierName, Supplier>();

function isSupplierName(name: string): name is SupplierName {
  return Object.hasOwn(factories, name);
}

/** The supplier named `name` (SUPPLIER, for verify and redeem, when not given). */
export function getSupplier(name: string = env().supplier, settings: SupplierSettings = env()): Supplier {
  const normalised = name.trim().toLowerCase();
  if (!isSupplierName(normalised)) {
    throw new SupplierConfigError(`Unknown supplier "${name}": expected one of ${supplierNames.join(", ")}.`);
  }
  let supplier = instances.get(normalised);
  if (!supplier) {
    supplier = factories[normalised](settings);
    instances.set(normalised, supplier);
  }
  return supplier;
}

/**
 * Who answers a caller's verify or redeem: SUPPLIER, or for a test key always the sandbox (test
 * mode). A live call in production is never answered by the sandbox (the start check refuses that
 * configuration already: assert-real-verify-supplier.ts).
 */
export function getCallerSupplier(caller: { livemode: boolean }): Supplier {
  if (!caller.livemode) return getSupplier("sandbox");
  const name = env().supplier;
  if (name === "sandbox" && !sandboxServesLiveOrders()) {
    throw new SupplierConfigError("SUPPLIER=sandbox cannot answer live calls in production: set SUPPLIER=h2h.");
  }
  return getSupplier(name);
}
