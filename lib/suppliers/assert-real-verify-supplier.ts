// Part of every process's start check (assertProductionSecrets): in production, verify and redeem
// (/brvvfy, /mobavfy, /rdmbr) must reach a real supplier, never the sandbox SUPPLIER defaults to.
import type { Env } from "../config/env";
import { h2hConfigFromEnv } from "./h2h-supplier";
import { sandboxServesLiveOrders } from "../config/sandbox-serves-live-orders";

/** Throws, naming the variables to set, when live verify and redeem calls would be answered by the sandbox. */
export function assertRealVerifySupplier(
  config: Pick<Env, "supplier" | "h2h">,
  sandboxAllowed: boolean = sandboxServesLiveOrders(),
): void {
  if (sandboxAllowed) return;
  if (config.supplier === "sandbox") {
    throw new Error(
      "Refusing to start in production with SUPPLIER=sandbox (the default): /brvvfy, /mobavfy and /rdmbr would be answered by the sandbox. Set SUPPLIER=h2h with H2H_BASE_URL, H2H_PARTNER_ID and H2H_SECRET (README: Production).",
    );
  }
  try {
    h2hConfigFromEnv(config.h2h);
  } catch (error) {
    throw new Error(`Refusing to start in production: SUPPLIER=${config.supplier}: ${(error as Error).message}`);
  }
}
