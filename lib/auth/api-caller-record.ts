// The caller as the API key lookup of every request reads it (prisma/functions/
// api_caller.sql): the key (api_keys), its allowlist (ip_allow_entries) and its account's state
// (accounts, the holder's price tier included), typed from Prisma's models with cents as numbers.
import type { Account, ApiKey, IpAllowEntry } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";

export type ApiCaller = {
  keyId: ApiKey["id"];
  /** The account acted on: the key's own, or for a test key its test account (test mode). */
  accountId: ApiKey["accountId"];
  /** False for a test key. */
  livemode: ApiKey["livemode"];
  requireIpAllowlist: ApiKey["requireIpAllowlist"];
  /** With keyId, names this very key row (the batched last_used_at stamp is bound to it). */
  keyCreatedAt: ApiKey["createdAt"];
  /** The key's allowlist; empty when it has none. */
  cidrs: IpAllowEntry["cidr"][];
  accountCreatedAt: Account["createdAt"];
  /** The holder's price tier (for a test key too); null: list prices. */
  priceTierId: Account["priceTierId"];
} & BigintsAsNumbers<
  Pick<Account, "apiEnabled" | "apiDisabledByAdmin" | "bannedAt" | "restrictedUntil" | "totalCreditedCents">
>;
