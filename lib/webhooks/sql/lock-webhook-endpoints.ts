// Row and advisory locks for changes to an account's webhook endpoints. Raw SQL: Prisma has neither
// SELECT ... FOR UPDATE nor advisory locks.
import type { PrismaTx } from "../../db/prisma";

/** Serialises concurrent adds of one account's endpoints (so the limit holds) without touching the accounts row. */
export async function lockAccountEndpoints(tx: PrismaTx, accountId: number): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('webhook-endpoints:' || ${accountId}::text))`;
}

/** Locks one endpoint of the account until the transaction ends; its sealed secret, or undefined when there is none. */
export async function lockWebhookEndpoint(
  tx: PrismaTx,
  accountId: number,
  endpointId: number,
): Promise<{ secret: string } | undefined> {
  const [row] = await tx.$queryRaw<{ secret: string }[]>`
    SELECT secret FROM webhook_endpoints WHERE id = ${endpointId} AND account_id = ${accountId} FOR UPDATE`;
  return row;
}
