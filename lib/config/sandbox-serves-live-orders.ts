// Production never pretends (README: Production). Outside production the in-process sandbox serves
// live orders, so development and the demo work with no supplier at all; in production a live top-up
// goes to a real supplier (prisma/functions/real_supplier_carries.sql, lib/fulfilment/sql/route-order.ts)
// or is refused, and verify and redeem need SUPPLIER to name a real one. Test keys use the sandbox
// everywhere.
import { env, isProduction, type Env } from "./env";

/** Whether the sandbox may serve live orders and live verify and redeem calls: anywhere but production. */
export function sandboxServesLiveOrders(config: Pick<Env, "nodeEnv"> = env()): boolean {
  return !isProduction(config);
}

/** Whether orders in this mode must go to a real supplier: live ones, in production. */
export function realSupplierRequired(livemode: boolean): boolean {
  return livemode && !sandboxServesLiveOrders();
}
