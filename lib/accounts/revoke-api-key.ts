import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";

/**
 * Revokes one of the account's own keys by its shown prefix. The account id scopes the lookup, so
 * a holder can never revoke someone else's key even by guessing a prefix. Takes effect on the next
 * API request (keys are not cached).
 */
export async function revokeApiKey(
  accountId: number,
  prefix: string,
  actor: string,
): Promise<{ status: "revoked"; keyId: number; prefix: string } | { status: "not_found" }> {
  return getPrisma().$transaction(async (tx) => {
    // The revoked_at IS NULL condition makes two concurrent revokes of one key revoke (and audit) it once.
    const [key] = await tx.apiKey.updateManyAndReturn({
      where: { accountId, prefix, revokedAt: null },
      data: { revokedAt: new Date() },
      select: { id: true, prefix: true },
    });
    if (!key) return { status: "not_found" as const };
    await recordAuditEntry(
      { actor, action: "api_key.revoke", targetType: "api_key", targetId: key.id, details: { accountId, prefix } },
      tx,
    );
    return { status: "revoked" as const, keyId: key.id, prefix: key.prefix };
  });
}
