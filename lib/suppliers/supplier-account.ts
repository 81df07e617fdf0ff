// The one path that builds a Supplier: a supplier account (the suppliers table) through its kind's
// module (kinds/index.ts), with the account's settings checked by the kind's schema and its sealed
// secret opened (sealed at rest with CODES_ENCRYPTION_KEY, for kinds that take one). SUPPLIER, for
// verify and redeem, is built here too (get-supplier.ts), as an account named after its kind.
// One instance per account version, so the sandbox's memory of references is shared by every caller.
import type { z } from "zod";
import { env, type Env } from "../config/env";
import { openSecret } from "../webhooks/endpoint-secret";
import { supplierKind } from "./kinds";
import { SupplierConfigError } from "./supplier-config";
import type { Supplier } from "./types";

export interface SupplierAccount {
  id: number;
  name: string;
  kind: string;
  settings: unknown;
  updatedAt: Date;
}

const instances = new Map<string, Supplier>();

export function supplierForAccount(account: SupplierAccount, config: Env = env()): Supplier {
  const version = `${account.id}:${account.updatedAt.getTime()}`;
  let supplier = instances.get(version);
  if (!supplier) {
    supplier = buildSupplier(account, config);
    for (const key of instances.keys()) if (key.startsWith(`${account.id}:`)) instances.delete(key);
    instances.set(version, supplier);
  }
  return supplier;
}

/** A new Supplier for `account`; throws SupplierConfigError, naming the account, when it cannot be built. */
export function buildSupplier(account: Pick<SupplierAccount, "name" | "kind" | "settings">, config: Env): Supplier {
  const kind = supplierKind(account.kind);
  if (!kind) throw new SupplierConfigError(`Supplier "${account.name}" has an unknown kind "${account.kind}".`);
  const { settings: stored, sealedSecret } = splitSealedSecret(account.settings);
  if (sealedSecret && !kind.sealedSecret) {
    throw new SupplierConfigError(`Supplier "${account.name}": a ${kind.name} supplier has no secret.`);
  }
  const settings = parseSettings(account.name, kind.settings, stored);
  const secret = sealedSecret ? openSecret(sealedSecret) : undefined;
  return kind.create(settings, { name: account.name, secret }, config);
}

/** An account's stored settings, and apart from them its sealed secret (never shown, never edited as a setting). */
export function splitSealedSecret(stored: unknown): { settings: unknown; sealedSecret?: string } {
  if (!stored || typeof stored !== "object" || Array.isArray(stored)) return { settings: stored ?? {} };
  const { sealedSecret, ...settings } = stored as Record<string, unknown>;
  return typeof sealedSecret === "string" && sealedSecret ? { settings, sealedSecret } : { settings };
}

function parseSettings<Schema extends z.ZodType>(name: string, schema: Schema, settings: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(settings);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new SupplierConfigError(`Supplier "${name}": settings ${issue.path.join(".") || "value"}: ${issue.message}.`);
}
