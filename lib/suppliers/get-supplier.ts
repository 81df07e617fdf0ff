// Which supplier answers a call: a top-up goes to its pack's supplier accounts (supplier-account.ts);
// verify and redeem, tied to no pack, go to SUPPLIER: a kind (kinds/index.ts), built by the same path
// as an account named after it with no settings. One instance per name per process, because the
// sandbox's memory of references must be shared by every caller. A name whose configuration is
// missing throws SupplierConfigError on every call rather than answering "unavailable": an
// operator's mistake is loud.
import { env, type Env } from "../config/env";
import { sandboxServesLiveOrders } from "../config/sandbox-serves-live-orders";
import { realSupplierAdvice } from "./assert-real-verify-supplier";
import { SANDBOX_KIND, supplierKind, supplierKindNames } from "./kinds";
import { buildSupplier } from "./supplier-account";
import { SupplierConfigError } from "./supplier-config";
import type { Supplier } from "./types";

export { SupplierConfigError } from "./supplier-config";

const instances = new Map<string, Supplier>();

/** The supplier of kind `name` (SUPPLIER, for verify and redeem, when not given). */
export function getSupplier(name: string = env().supplier, config: Env = env()): Supplier {
  const normalised = name.trim().toLowerCase();
  if (!supplierKind(normalised)) {
    throw new SupplierConfigError(`Unknown supplier "${name}": expected one of ${supplierKindNames()}.`);
  }
  let supplier = instances.get(normalised);
  if (!supplier) {
    supplier = buildSupplier({ name: normalised, kind: normalised, settings: {} }, config);
    instances.set(normalised, supplier);
  }
  return supplier;
}

/**
 * Who answers a caller's verify or redeem: SUPPLIER, or for a test key always the sandbox (test
 * mode). A live call in production is never answered by a kind that is not real (the start check
 * refuses that configuration already: assert-real-verify-supplier.ts).
 */
export function getCallerSupplier(caller: { livemode: boolean }): Supplier {
  if (!caller.livemode) return getSupplier(SANDBOX_KIND);
  const name = env().supplier;
  if (!supplierKind(name)?.real && !sandboxServesLiveOrders()) {
    throw new SupplierConfigError(
      `SUPPLIER=${name} cannot answer live calls in production: set ${realSupplierAdvice()}.`,
    );
  }
  return getSupplier(name);
}
