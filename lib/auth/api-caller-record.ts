// The caller as the API key lookup of every request reads it: the key (api_keys), its allowlist
// (ip_allow_entries) and its account's state (accounts), typed from Prisma's models with cents as
// numbers. The lookup selects API_CALLER_COLUMNS and gets this shape back from pg as it is.
import type { Account, ApiKey, IpAllowEntry } from "../generated/prisma/client";
import type { BigintsAsNumbers } from "../db/number-from-db";
import { selectList, type ColumnMap } from "../db/select-list";

export type ApiCaller = {
  keyId: ApiKey["id"];
  accountId: ApiKey["accountId"];
  requireIpAllowlist: ApiKey["requireIpAllowlist"];
  /** With keyId, names this very key row (the batched last_used_at stamp is bound to it). */
  keyCreatedAt: ApiKey["createdAt"];
  /** The key's allowlist; empty when it has none. */
  cidrs: IpAllowEntry["cidr"][];
  accountCreatedAt: Account["createdAt"];
} & BigintsAsNumbers<
  Pick<Account, "apiEnabled" | "apiDisabledByAdmin" | "bannedAt" | "restrictedUntil" | "totalCreditedCents">
>;

const API_CALLER_COLUMN_MAP: ColumnMap<ApiCaller> = {
  keyId: "k.id",
  accountId: "k.account_id",
  requireIpAllowlist: "k.require_ip_allowlist",
  keyCreatedAt: "k.created_at",
  cidrs: "COALESCE((SELECT array_agg(e.cidr) FROM ip_allow_entries e WHERE e.api_key_id = k.id), '{}')",
  apiEnabled: "a.api_enabled",
  apiDisabledByAdmin: "a.api_disabled_by_admin",
  bannedAt: "a.banned_at",
  restrictedUntil: "a.restricted_until",
  accountCreatedAt: "a.created_at",
  totalCreditedCents: "a.total_credited_cents",
};

/** The select list of an ApiCaller, with FROM API_CALLER_TABLES. */
export const API_CALLER_COLUMNS = selectList(API_CALLER_COLUMN_MAP);
export const API_CALLER_TABLES = "api_keys k JOIN accounts a ON a.id = k.account_id";
