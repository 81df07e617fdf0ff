// Production never pretends (README: Production). Outside production the in-process sandbox serves
// live orders, so development and the demo work with no supplier at all; in production a live top-up
// goes to a real supplier (real_supplier_carries() in the migrations, lib/fulfilment/sql/route-order.ts)
// or is refused, and verify and redeem need SUPPLIER to name a real one. Test keys use the sandbox
// everywhere.
import { env, type Env } from "./env";

// Decided once per process and kept on globalThis: Next's server bundle holds its own copy of this
// module, and loading a production build turns NODE_ENV into "production" in the process that loads
// it; the start check decides before that, and the bundle's copy finds the answer here.
const DECIDED = Symbol.for("topup-api.sandbox-serves-live-orders");
type WithDecided = typeof globalThis & { [DECIDED]?: boolean };

/**
 * Whether the sandbox may serve live orders and live verify and redeem calls: anywhere but
 * production. With `config`, for that configuration; without, for this process.
 */
export function sandboxServesLiveOrders(config?: Pick<Env, "nodeEnv">): boolean {
  if (config) return config.nodeEnv !== "production";
  const holder = globalThis as WithDecided;
  // Read at run time, not the value a bundler compiled in (`next start` keeps NODE_ENV=test, say).
  holder[DECIDED] ??= (Reflect.get(process.env, "NODE_ENV") ?? env().nodeEnv) !== "production";
  return holder[DECIDED];
}
