// A host-to-host JSON supplier over HTTP (the protocol: h2h-supplier.ts). An account's settings name
// what differs from the H2H_* environment: its base URL, partner id and timeout, and its secret
// either from an environment variable of its own (secretEnv, SUPPLIER_SECRET_*) or sealed at rest.
// An account with a base URL of its own signs only with its own secret: H2H_SECRET belongs to
// H2H_BASE_URL and is never sent anywhere else. That URL passes the webhooks' destination check
// when saved and at every connection (supplier-destination.ts), since DNS can change in between.
import { z } from "zod";
import { namedSecret, type Env } from "../../config/env";
import { DestinationRefused, resolveDestination, type DestinationPolicy } from "../../webhooks/check-destination";
import { createH2hSupplier, h2hConfigFromEnv } from "../h2h-supplier";
import { SupplierConfigError } from "../supplier-config";
import { supplierDestinationPolicy } from "../supplier-destination";
import type { Supplier } from "../types";
import type { SupplierKind } from "./supplier-kind";

/** secretEnv names only these variables, so no other setting (DATABASE_URL ...) can become a signing key. */
const SUPPLIER_SECRET_PREFIX = "SUPPLIER_SECRET_";
const SECRET_ENV_PATTERN = /^SUPPLIER_SECRET_[A-Z0-9_]+$/;

const H2hSettings = z
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
  })
  .strict();
type H2hSettings = z.infer<typeof H2hSettings>;

function createAccountSupplier(
  settings: H2hSettings,
  account: { name: string; secret?: string },
  config: Env,
): Supplier {
  const own = account.secret ?? (settings.secretEnv ? namedSecret(settings.secretEnv) : undefined);
  if (settings.secretEnv && !own) {
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
  const destination = settings.baseUrl ? supplierDestinationPolicy(config) : undefined;
  return createH2hSupplier({ ...connection, ...(destination ? { destination } : {}) }, account.name);
}

async function refuseDestination(settings: H2hSettings, policy: DestinationPolicy): Promise<string | undefined> {
  if (!settings.baseUrl) return undefined;
  try {
    await resolveDestination(settings.baseUrl, policy);
    return undefined;
  } catch (error) {
    if (error instanceof DestinationRefused)
      return `Settings: baseUrl: ${error.message} (SUPPLIERS_ALLOW_PRIVATE=1 allows private addresses).`;
    throw error;
  }
}

function refuseSecret(settings: H2hSettings, hasSealedSecret: boolean): string | undefined {
  if (hasSealedSecret && settings.secretEnv)
    return "Secret: this supplier has a sealed secret and a secretEnv: clear the secret or remove secretEnv.";
  if (settings.baseUrl && !hasSealedSecret && !settings.secretEnv)
    return "Secret: a supplier with a baseUrl of its own signs with a secret of its own: give one, or name a SUPPLIER_SECRET_ variable in secretEnv.";
  return undefined;
}

export const h2hKind: SupplierKind<H2hSettings> = {
  name: "h2h",
  real: true,
  description:
    "A host-to-host JSON supplier over HTTP. What an account leaves empty comes from H2H_*; an account with a base URL of its own needs a secret of its own.",
  settings: H2hSettings,
  fields: [
    { name: "baseUrl", label: "Base URL", type: "url", placeholder: "https://supplier.example/api" },
    { name: "partnerId", label: "Partner id", type: "text" },
    { name: "timeoutMs", label: "Timeout (ms)", type: "integer", help: "Empty: H2H_TIMEOUT_MS." },
    {
      name: "secretEnv",
      label: "Secret's environment variable",
      type: "text",
      placeholder: `${SUPPLIER_SECRET_PREFIX}ACME`,
      help: `A variable named ${SUPPLIER_SECRET_PREFIX}…, or give the secret below instead.`,
    },
  ],
  sealedSecret: true,
  environment: "H2H_BASE_URL, H2H_PARTNER_ID and H2H_SECRET",
  refuseSettings: refuseDestination,
  refuseSecret,
  create: createAccountSupplier,
};
