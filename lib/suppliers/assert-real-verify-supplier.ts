// Part of every process's start check (assertProductionSecrets): in production, verify and redeem
// (/brvvfy, /mobavfy, /rdmbr) must reach a real supplier, never a stand-in such as the sandbox that
// SUPPLIER defaults to. Which kinds are real, and what each needs, their modules say (kinds/).
import type { Env } from "../config/env";
import { sandboxServesLiveOrders } from "../config/sandbox-serves-live-orders";
import { SANDBOX_KIND, supplierKind, supplierKinds } from "./kinds";
import { buildSupplier } from "./supplier-account";

/** How to name a real supplier: "SUPPLIER=h2h with H2H_BASE_URL, H2H_PARTNER_ID and H2H_SECRET". */
export function realSupplierAdvice(): string {
  return supplierKinds()
    .filter((kind) => kind.real)
    .map((kind) => `SUPPLIER=${kind.name}${kind.environment ? ` with ${kind.environment}` : ""}`)
    .join(", or ");
}

/**
 * Throws, naming the variables to set, when live verify and redeem calls would be answered by a
 * stand-in, or SUPPLIER's configuration is incomplete (the supplier is built, not called).
 */
export function assertRealVerifySupplier(config: Env, sandboxAllowed: boolean = sandboxServesLiveOrders()): void {
  if (sandboxAllowed) return;
  if (!supplierKind(config.supplier)?.real) {
    const unset = config.supplier === SANDBOX_KIND ? " (the default)" : "";
    throw new Error(
      `Refusing to start in production with SUPPLIER=${config.supplier}${unset}: /brvvfy, /mobavfy and /rdmbr would be answered by a stand-in, not a real supplier. Set ${realSupplierAdvice()} (README: Production).`,
    );
  }
  try {
    buildSupplier({ name: config.supplier, kind: config.supplier, settings: {} }, config);
  } catch (error) {
    throw new Error(`Refusing to start in production: SUPPLIER=${config.supplier}: ${(error as Error).message}`);
  }
}
