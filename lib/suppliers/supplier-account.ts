// A supplier account (the suppliers table) as a Supplier: the sandbox with the account's behaviours,
// or an h2h client with the account's connection. An h2h account's settings name what differs from
// the H2H_* environment: its base URL, partner id and timeout, and its secret either from an
// environment variable of its own (secretEnv, SUPPLIER_SECRET_*) or sealed at rest with
// CODES_ENCRYPTION_KEY (sealedSecret). An account with a base URL of its own signs only with its
// own secret: H2H_SECRET belongs to H2H_BASE_URL and is never sent anywhere else.
// One instance per account version, so the sandbox's memory of references is shared by every caller.
import { z } from "zod";
import { env, namedSecret, type Env } from "../config/env";
import { openSecret } from "../webhooks/endpoint-secret";
import { createH2hSupplier, h2hConfigFromEnv } from "./h2h-supplier";
import { supplierDestinationPolicy } from "./supplier-destination";
import { createSandboxSupplier } from "./sandbox-supplier";
import { SupplierConfigError } from "./supplier-config";
import type { Supplier } from "./types";

export const SUPPLIER_KINDS = ["sandbox", "h2h"] as const;
export type SupplierKind = (typeof SUPPLIER_KINDS)[number];

/** secretEnv names only these variables, so no other setting (DATABASE_URL ...) can become a signing key. */
const SUPPLIER_SECRET_PREFIX = "SUPPLIER_SECRET_";
const SECRET_ENV_PATTERN = /^SUPPLIER_SECRET_[A-Z0-9_]+$/;

const SandboxAccountSettings = z
  .object({
    latencyMs: z.number().int().min(0).max(60_000).optional(),
    down: z.boolean().optional(),
    refuseSkus: z.array(z.string()).optional(),
    outOfStockSkus: z.array(z.string()).optional(),
  })
  .strict();

const H2hAccountSettings = z
  .object({
    baseUrl: z.url().optional(),
    partnerId: z.string().min(1).optional(),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
    secretEnv: z
      .string()
      .regex(
        SECRET_ENV_PATTERN,
        `must name an environment variable starting with ${SUPPLIER_SECRET_PREFIX} (e.g. ${SUPPLIER_SECRET_PREFIX}ACME)`,
      )
      .optional(),
    sealedSecret: z.string().optional(),
  })
  .strict();

export const SUPPLIER_SETTINGS = { sandbox: SandboxAccountSettings, h2h: H2hAccountSettings } as const;

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

function buildSupplier(account: SupplierAccount, config: Env): Supplier {
  if (account.kind === "sandbox") {
    const settings = parseSettings(account, SandboxAccountSettings);
    return createSandboxSupplier({ ...config.sandbox, ...settings, name: account.name });
  }
  if (account.kind === "h2h") {
    const settings = parseSettings(account, H2hAccountSettings);
    const own = settings.sealedSecret
      ? openSecret(settings.sealedSecret)
      : settings.secretEnv
        ? namedSecret(settings.secretEnv)
        : undefined;
    if (settings.secretEnv && !settings.sealedSecret && !own) {
      throw new SupplierConfigError(`Supplier "${account.name}": its secret (${settings.secretEnv}) is not set.`);
    }
    if (settings.baseUrl && !own) {
      throw new SupplierConfigError(
        `Supplier "${account.name}" has a baseUrl of its own but no secret of its own (a sealed secret or secretEnv).`,
      );
    }
    const connection = h2hConfigFromEnv({
      ...config.h2h,
      ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
      ...(settings.partnerId ? { partnerId: settings.partnerId } : {}),
      ...(settings.timeoutMs ? { timeoutMs: settings.timeoutMs } : {}),
      ...(own ? { secret: own } : {}),
    });
    // The account's own URL is checked at every connection, as a webhook's is (DNS can change).
    const destination = settings.baseUrl ? supplierDestinationPolicy(config) : undefined;
    return createH2hSupplier({ ...connection, ...(destination ? { destination } : {}) }, account.name);
  }
  throw new SupplierConfigError(`Supplier "${account.name}" has an unknown kind "${account.kind}".`);
}

function parseSettings<Schema extends z.ZodType>(account: SupplierAccount, schema: Schema): z.infer<Schema> {
  const parsed = schema.safeParse(account.settings ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new SupplierConfigError(
    `Supplier "${account.name}": settings ${issue.path.join(".") || "value"}: ${issue.message}.`,
  );
}
