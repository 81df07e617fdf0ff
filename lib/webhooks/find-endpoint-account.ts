import { getPrisma } from "../db/prisma";

/**
 * The account an endpoint of the holder belongs to: the holder's own, or its test account for a
 * test endpoint (test mode). Undefined when the endpoint is not the holder's.
 */
export async function findEndpointAccount(holderId: number, endpointId: number): Promise<number | undefined> {
  const endpoint = await getPrisma().webhookEndpoint.findFirst({
    where: { id: endpointId, account: { OR: [{ id: holderId }, { liveAccountId: holderId }] } },
    select: { accountId: true },
  });
  return endpoint?.accountId;
}
