// Where a supplier account's baseUrl may point: the webhooks' destination check (check-destination.ts),
// with SUPPLIERS_ALLOW_PRIVATE as the switch for http, any port and loopback/private addresses.
// Suppliers have a switch of their own because an owner, not an account, sets the URL, and a real
// supplier may sit behind a private link in production; cloud metadata addresses stay refused.
import { env, type Env } from "../config/env";
import { systemResolver, type DestinationPolicy, type Resolver } from "../webhooks/check-destination";

export function supplierDestinationPolicy(
  config: Pick<Env, "suppliersAllowPrivate"> = env(),
  resolve: Resolver = systemResolver,
): DestinationPolicy {
  return { allowPrivate: config.suppliersAllowPrivate, resolve };
}
