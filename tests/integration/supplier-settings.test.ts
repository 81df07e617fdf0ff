// Supplier accounts' settings as the Suppliers page saves them (lib/suppliers/manage-suppliers.ts):
// an edit keeps the sealed secret unless a new one is given or it is cleared on purpose; secretEnv
// names only SUPPLIER_SECRET_* variables; baseUrl passes the webhooks' destination check, when saved
// and at every connection; an account never signs with another supplier's secret. The supplier built
// from each saved row talks to local fake h2h servers, which check every signature.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnv, type Env } from "@/lib/config/env";
import { editVersionOf } from "@/lib/db/edit-version";
import { getPrisma } from "@/lib/db/prisma";
import { saveSupplierAccount } from "@/lib/suppliers/manage-suppliers";
import { supplierForAccount } from "@/lib/suppliers/supplier-account";
import { SupplierConfigError } from "@/lib/suppliers/supplier-config";
import { supplierDestinationPolicy } from "@/lib/suppliers/supplier-destination";
import { useCleanDatabase } from "../helpers/clean-database";
import { sqlRow } from "../helpers/db";
import { startFakeH2hSupplier, type FakeH2hSupplier } from "../helpers/fake-h2h-supplier";
import { upsertSupplier } from "../helpers/suppliers";

const ACTOR = "admin:owner@example.com";
let first: FakeH2hSupplier;
let second: FakeH2hSupplier;
/** The fakes listen on 127.0.0.1: the development switch is on, as a developer's would be. */
let allowed: Env;
const allowPrivate = supplierDestinationPolicy({ suppliersAllowPrivate: true });

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  first = await startFakeH2hSupplier({ partnerId: "p-first", secret: "first-secret" });
  second = await startFakeH2hSupplier({ partnerId: "p-second", secret: "second-secret" });
  for (const fake of [first, second]) fake.addPlayer("12345", "NightOwl");
  // The H2H_* environment is the first supplier's.
  allowed = loadEnv({
    ...process.env,
    SUPPLIERS_ALLOW_PRIVATE: "1",
    H2H_BASE_URL: first.baseUrl,
    H2H_PARTNER_ID: first.partnerId,
    H2H_SECRET: "first-secret",
  });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

async function account(name: string) {
  return getPrisma().supplier.findUniqueOrThrow({ where: { name } });
}

async function versionOf(name: string): Promise<string> {
  return editVersionOf((await account(name)).updatedAt);
}

function settingsOf(fake: FakeH2hSupplier, extra: object = {}): object {
  return { baseUrl: fake.baseUrl, partnerId: fake.partnerId, timeoutMs: 5000, ...extra };
}

async function verifyAt(name: string, config: Env = allowed) {
  return supplierForAccount(await account(name), config).verifyPlayer({ game: "br", playerId: "12345" });
}

describe("the sealed secret", () => {
  it("an edit without a secret keeps the sealed one, and the supplier still signs with it", async () => {
    const added = await saveSupplierAccount({
      name: "second",
      kind: "h2h",
      settings: settingsOf(second),
      secret: "second-secret",
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(added).toEqual({ status: "saved", message: "Supplier second saved." });
    const sealed = ((await account("second")).settings as { sealedSecret?: string }).sealedSecret;
    expect(sealed).toEqual(expect.any(String));
    expect(sealed).not.toContain("second-secret");

    const edited = await saveSupplierAccount({
      name: "second",
      kind: "h2h",
      settings: settingsOf(second, { timeoutMs: 4000 }),
      version: await versionOf("second"),
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(edited.status).toBe("saved");
    const settings = (await account("second")).settings as { sealedSecret?: string; timeoutMs?: number };
    expect(settings).toMatchObject({ sealedSecret: sealed, timeoutMs: 4000 });

    const before = second.requests.length;
    expect(await verifyAt("second")).toEqual({ status: "found", nickname: "NightOwl" });
    const sent = second.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((request) => request.signatureValid)).toBe(true);
  });

  it("is cleared only on purpose, and a sealed secret and a secretEnv together are refused", async () => {
    process.env.SUPPLIER_SECRET_SECOND = "second-secret";
    const both = await saveSupplierAccount({
      name: "second",
      kind: "h2h",
      settings: settingsOf(second, { secretEnv: "SUPPLIER_SECRET_SECOND" }),
      version: await versionOf("second"),
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(both).toEqual({
      status: "refused",
      message: "Secret: this supplier has a sealed secret and a secretEnv: clear the secret or remove secretEnv.",
    });

    const cleared = await saveSupplierAccount({
      name: "second",
      kind: "h2h",
      settings: settingsOf(second, { secretEnv: "SUPPLIER_SECRET_SECOND" }),
      clearSecret: true,
      version: await versionOf("second"),
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(cleared.status).toBe("saved");
    expect((await account("second")).settings).not.toHaveProperty("sealedSecret");
    expect(await verifyAt("second")).toEqual({ status: "found", nickname: "NightOwl" });
    const audit = await sqlRow(`SELECT details FROM audit_log WHERE action = 'supplier.save' ORDER BY id DESC LIMIT 1`);
    expect(audit.details).toMatchObject({ secret: "cleared" });
  });

  it("settings cannot carry a sealed secret of their own (another supplier's, pasted)", async () => {
    const stolen = ((await account("second")).settings as { sealedSecret?: string }).sealedSecret ?? "sealed";
    const result = await saveSupplierAccount({
      name: "third",
      kind: "h2h",
      settings: { sealedSecret: stolen },
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(result).toEqual({
      status: "refused",
      message: "Settings: sealedSecret is not written here: give the secret in its own field.",
    });
  });
});

describe("secretEnv", () => {
  it("names only SUPPLIER_SECRET_* variables", async () => {
    for (const name of ["DATABASE_URL", "H2H_SECRET", "CODES_ENCRYPTION_KEY", "SUPPLIER_SECRET_"]) {
      const result = await saveSupplierAccount({
        name: "env-named",
        kind: "h2h",
        settings: settingsOf(second, { secretEnv: name }),
        actor: ACTOR,
        policy: allowPrivate,
      });
      expect(result).toEqual({
        status: "refused",
        message:
          "Settings: secretEnv: must name an environment variable starting with SUPPLIER_SECRET_ (e.g. SUPPLIER_SECRET_ACME).",
      });
    }
    expect(await getPrisma().supplier.count({ where: { name: "env-named" } })).toBe(0);
  });

  it("a stored account naming another variable is a configuration error when used, never a key", async () => {
    await upsertSupplier("legacy", "h2h", { baseUrl: second.baseUrl, secretEnv: "DATABASE_URL" });
    const legacy = await account("legacy");
    expect(() => supplierForAccount(legacy, allowed)).toThrow(
      /Supplier "legacy": settings secretEnv: must name an environment variable starting with SUPPLIER_SECRET_/,
    );
  });
});

describe("baseUrl's destination", () => {
  it("a private address is refused unless SUPPLIERS_ALLOW_PRIVATE=1; metadata addresses always", async () => {
    const refusedPolicy = supplierDestinationPolicy(loadEnv({ ...process.env, SUPPLIERS_ALLOW_PRIVATE: "0" }));
    const loopback = await saveSupplierAccount({
      name: "private",
      kind: "h2h",
      settings: settingsOf(second),
      secret: "second-secret",
      actor: ACTOR,
      policy: refusedPolicy,
    });
    expect(loopback).toEqual({
      status: "refused",
      message: "Settings: baseUrl: the URL must be https (SUPPLIERS_ALLOW_PRIVATE=1 allows private addresses).",
    });
    const internal = await saveSupplierAccount({
      name: "private",
      kind: "h2h",
      settings: { baseUrl: "https://supplier.internal/api", partnerId: "p" },
      secret: "s",
      actor: ACTOR,
      policy: { ...refusedPolicy, resolve: async () => [{ address: "10.1.2.3", family: 4 }] },
    });
    expect(internal).toEqual({
      status: "refused",
      message:
        "Settings: baseUrl: supplier.internal resolves to a non-public address (SUPPLIERS_ALLOW_PRIVATE=1 allows private addresses).",
    });
    const metadata = await saveSupplierAccount({
      name: "private",
      kind: "h2h",
      settings: { baseUrl: "http://169.254.169.254/latest", partnerId: "p" },
      secret: "s",
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(metadata).toEqual({
      status: "refused",
      message:
        "Settings: baseUrl: 169.254.169.254 is a cloud metadata address (SUPPLIERS_ALLOW_PRIVATE=1 allows private addresses).",
    });
    expect(await getPrisma().supplier.count({ where: { name: "private" } })).toBe(0);
  });

  it("is checked again at every connection: without the switch, nothing is sent", async () => {
    await upsertSupplier("checked", "h2h", {
      baseUrl: second.baseUrl,
      partnerId: second.partnerId,
      secretEnv: "SUPPLIER_SECRET_SECOND",
    });
    const before = second.requests.length;
    const refusing = loadEnv({ ...process.env, SUPPLIERS_ALLOW_PRIVATE: "0" });
    expect(await verifyAt("checked", refusing)).toEqual({
      status: "unavailable",
      reason: "destination refused: the URL must be https",
    });
    expect(second.requests.length).toBe(before);
  });
});

describe("whose secret signs", () => {
  it("an account with a baseUrl of its own and no secret of its own is refused, never signed with H2H_SECRET", async () => {
    const saved = await saveSupplierAccount({
      name: "no-secret",
      kind: "h2h",
      settings: settingsOf(second),
      actor: ACTOR,
      policy: allowPrivate,
    });
    expect(saved).toEqual({
      status: "refused",
      message:
        "Secret: a supplier with a baseUrl of its own signs with a secret of its own: give one, or name a SUPPLIER_SECRET_ variable in secretEnv.",
    });
    // As a row written before this rule would be: the first supplier's H2H_SECRET must not go to the second.
    await upsertSupplier("no-secret", "h2h", { baseUrl: second.baseUrl, partnerId: second.partnerId });
    const before = second.requests.length;
    const row = await account("no-secret");
    expect(() => supplierForAccount(row, allowed)).toThrow(SupplierConfigError);
    expect(() => supplierForAccount(row, allowed)).toThrow(
      'Supplier "no-secret" has a baseUrl of its own but no secret of its own (a sealed secret or secretEnv).',
    );
    expect(second.requests.length).toBe(before);
  });

  it("an account without a baseUrl is the H2H_* supplier, its URL and its secret together", async () => {
    await upsertSupplier("from-env", "h2h");
    const before = first.requests.length;
    expect(await verifyAt("from-env")).toEqual({ status: "found", nickname: "NightOwl" });
    expect(first.requests.slice(before).every((request) => request.signatureValid)).toBe(true);
  });
});
