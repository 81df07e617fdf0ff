import { getPrisma } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { generateApiKey } from "../auth/api-key-format";
import { lockAccount } from "./sql/lock-account";
import { openTestAccount } from "../wallet/test-wallet";

/** Active keys per account. Each key has its own allowlist; more than a handful is a mistake or abuse. */
export const MAX_ACTIVE_KEYS = 10;

export type IssueApiKeyResult =
  | { status: "created"; id: number; key: string; prefix: string }
  | { status: "limit_reached"; limit: number }
  | { status: "not_found" };

export interface IssueApiKeyOptions {
  /** A label shown in listings ("demo", "bench-12"). */
  name?: string;
  /** Use this key instead of a random one: the seed's DEMO_API_KEY. */
  plainKey?: ReturnType<typeof generateApiKey>;
  /** The bot leaves the default; the benchmark's load accounts hold many more keys. */
  maxActiveKeys?: number;
  /** False for a test key (svc_test_...), which acts on the account's test account (made here). */
  livemode?: boolean;
}

/**
 * Creates an API key for the account: the bot's /newkey, the demo seed, the test fixtures and the
 * benchmark all come here. The plain key is in the result only: the database keeps its SHA-256 hash
 * and the audit log its prefix, so the caller must show it once and forget it.
 */
export async function issueApiKey(
  accountId: number,
  actor: string,
  options: IssueApiKeyOptions = {},
): Promise<IssueApiKeyResult> {
  const limit = options.maxActiveKeys ?? MAX_ACTIVE_KEYS;
  return getPrisma().$transaction(async (tx) => {
    // Locking the account row serialises concurrent /newkey so the limit holds.
    if (!(await lockAccount(tx, accountId))) return { status: "not_found" as const };
    const active = await tx.apiKey.count({ where: { accountId, revokedAt: null } });
    if (active >= limit) return { status: "limit_reached" as const, limit };
    const livemode = options.livemode ?? true;
    // The test account exists before its first key can be used: the key's lookup needs it.
    if (!livemode && (await openTestAccount(tx, accountId)) === undefined) return { status: "not_found" as const };
    const generated = options.plainKey ?? generateApiKey({ livemode });
    const row = await tx.apiKey.create({
      data: { accountId, keyHash: generated.hash, prefix: generated.prefix, name: options.name ?? null, livemode },
      select: { id: true },
    });
    await recordAuditEntry(
      {
        actor,
        action: "api_key.create",
        targetType: "api_key",
        targetId: row.id,
        details: { accountId, prefix: generated.prefix, livemode },
      },
      tx,
    );
    return { status: "created" as const, id: row.id, key: generated.key, prefix: generated.prefix };
  });
}
