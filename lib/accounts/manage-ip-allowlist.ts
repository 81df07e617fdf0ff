// The IP allowlist of an account's key: add, remove, and the "require a list" switch. Entries are
// stored normalised as CIDR (normaliseCidr), so "203.0.113.7" and "203.0.113.7/32" are one entry
// and the API's matcher never sees an unparsable value. Every lookup is scoped to the account.
import { getPrisma, type PrismaTx } from "../db/prisma";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { normaliseCidr } from "../net/ip";
import { lockAccount } from "./sql/lock-account";

/** Entries per key: an allowlist is a handful of servers, not a firewall. */
const MAX_ALLOWLIST_ENTRIES = 50;

interface SelectedKey {
  id: number;
  prefix: string;
}

/** Why no key could be chosen: none exists, the prefix matches none, or several exist and none was named. */
export type KeySelectionFailure =
  { status: "no_keys" } | { status: "key_not_found"; prefix: string } | { status: "key_required"; prefixes: string[] };

export type AllowlistChange =
  | { status: "invalid_address"; input: string }
  | KeySelectionFailure
  | {
      status: "added" | "already_present" | "removed" | "not_present";
      key: SelectedKey;
      cidr: string;
      cidrs: string[];
      requireIpAllowlist: boolean;
    }
  | { status: "limit_reached"; key: SelectedKey; limit: number };

export type RequirementChange =
  KeySelectionFailure | { status: "updated" | "unchanged"; key: SelectedKey; required: boolean; cidrs: string[] };

/**
 * Picks the key an /ip command is about: the named one, or the only one. The account's row is
 * locked first so that concurrent edits of its keys' lists stay within the entry limit.
 */
async function selectKey(
  tx: PrismaTx,
  accountId: number,
  keyPrefix: string | undefined,
): Promise<({ status: "selected" } & SelectedKey & { requireIpAllowlist: boolean }) | KeySelectionFailure> {
  await lockAccount(tx, accountId);
  const rows = await tx.apiKey.findMany({
    where: { accountId, revokedAt: null },
    orderBy: { id: "asc" },
    select: { id: true, prefix: true, requireIpAllowlist: true },
  });
  if (keyPrefix !== undefined) {
    const key = rows.find((row) => row.prefix === keyPrefix);
    return key ? { status: "selected", ...key } : { status: "key_not_found", prefix: keyPrefix };
  }
  const [only] = rows;
  if (!only) return { status: "no_keys" };
  if (rows.length > 1) return { status: "key_required", prefixes: rows.map((row) => row.prefix) };
  return { status: "selected", ...only };
}

async function keyCidrs(tx: PrismaTx, keyId: number): Promise<string[]> {
  const rows = await tx.ipAllowEntry.findMany({
    where: { apiKeyId: keyId },
    orderBy: { cidr: "asc" },
    select: { cidr: true },
  });
  return rows.map((row) => row.cidr);
}

/** Audits an entry added or removed, and answers with the key's list as it now stands. */
async function auditedChange(
  tx: PrismaTx,
  input: { accountId: number; actor: string },
  change: { status: "added" | "removed"; key: SelectedKey; cidr: string; requireIpAllowlist: boolean },
): Promise<AllowlistChange> {
  const action = change.status === "added" ? "api_key.ip_add" : "api_key.ip_remove";
  const details = { accountId: input.accountId, cidr: change.cidr };
  await recordAuditEntry({ actor: input.actor, action, targetType: "api_key", targetId: change.key.id, details }, tx);
  return { ...change, cidrs: await keyCidrs(tx, change.key.id) };
}

/** Adds an address or range to the key's allowlist. */
export async function addAllowedIp(input: {
  accountId: number;
  address: string;
  keyPrefix?: string;
  actor: string;
}): Promise<AllowlistChange> {
  const cidr = normaliseCidr(input.address);
  if (!cidr) return { status: "invalid_address", input: input.address };
  return getPrisma().$transaction(async (tx) => {
    const selected = await selectKey(tx, input.accountId, input.keyPrefix);
    if (selected.status !== "selected") return selected;
    const key = { id: selected.id, prefix: selected.prefix };
    const existing = await keyCidrs(tx, key.id);
    if (existing.includes(cidr)) {
      return {
        status: "already_present" as const,
        key,
        cidr,
        cidrs: existing,
        requireIpAllowlist: selected.requireIpAllowlist,
      };
    }
    if (existing.length >= MAX_ALLOWLIST_ENTRIES)
      return { status: "limit_reached" as const, key, limit: MAX_ALLOWLIST_ENTRIES };
    await tx.ipAllowEntry.create({ data: { apiKeyId: key.id, cidr } });
    return auditedChange(tx, input, { status: "added", key, cidr, requireIpAllowlist: selected.requireIpAllowlist });
  });
}

/** Removes an address or range (in any spelling that normalises to the stored entry). */
export async function removeAllowedIp(input: {
  accountId: number;
  address: string;
  keyPrefix?: string;
  actor: string;
}): Promise<AllowlistChange> {
  const cidr = normaliseCidr(input.address);
  if (!cidr) return { status: "invalid_address", input: input.address };
  return getPrisma().$transaction(async (tx) => {
    const selected = await selectKey(tx, input.accountId, input.keyPrefix);
    if (selected.status !== "selected") return selected;
    const key = { id: selected.id, prefix: selected.prefix };
    const deleted = await tx.ipAllowEntry.deleteMany({ where: { apiKeyId: key.id, cidr } });
    if (deleted.count === 0) {
      return {
        status: "not_present" as const,
        key,
        cidr,
        cidrs: await keyCidrs(tx, key.id),
        requireIpAllowlist: selected.requireIpAllowlist,
      };
    }
    return auditedChange(tx, input, { status: "removed", key, cidr, requireIpAllowlist: selected.requireIpAllowlist });
  });
}

/**
 * Turns "this key needs an allowlist" on or off. With it on and the list empty, the API answers
 * IP_ALLOWLIST_REQUIRED; a non-empty list is always enforced whatever this flag says.
 */
export async function setIpAllowlistRequired(input: {
  accountId: number;
  required: boolean;
  keyPrefix?: string;
  actor: string;
}): Promise<RequirementChange> {
  return getPrisma().$transaction(async (tx) => {
    const selected = await selectKey(tx, input.accountId, input.keyPrefix);
    if (selected.status !== "selected") return selected;
    const key = { id: selected.id, prefix: selected.prefix };
    const changed = selected.requireIpAllowlist !== input.required;
    if (changed) await tx.apiKey.update({ where: { id: key.id }, data: { requireIpAllowlist: input.required } });
    await recordAuditEntry(
      {
        actor: input.actor,
        action: input.required ? "api_key.ip_require_on" : "api_key.ip_require_off",
        targetType: "api_key",
        targetId: key.id,
        details: { accountId: input.accountId, changed },
      },
      tx,
    );
    return {
      status: changed ? ("updated" as const) : ("unchanged" as const),
      key,
      required: input.required,
      cidrs: await keyCidrs(tx, key.id),
    };
  });
}
