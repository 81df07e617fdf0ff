// The supplier kinds' registry (lib/suppliers/kinds/index.ts) is the one list the rest reads: every
// kind in it is a value SUPPLIER takes, has one dashboard input per setting of its schema (and
// accepts what those inputs send), and is built into a Supplier both as SUPPLIER (no settings) and
// as an account with the settings its inputs give.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadEnv } from "@/lib/config/env";
import { supplierKinds } from "@/lib/suppliers/kinds";
import {
  settingInputName,
  settingInputValue,
  settingsFromForm,
  type SettingsField,
} from "@/lib/suppliers/kinds/settings-fields";
import { buildSupplier } from "@/lib/suppliers/supplier-account";

// Each kind's process-wide configuration, so that every one can be built without settings.
const config = loadEnv({
  H2H_BASE_URL: "https://supplier.example/api",
  H2H_PARTNER_ID: "partner-7",
  H2H_SECRET: "env-secret",
});
const SAMPLE: Record<SettingsField["type"], string> = {
  text: "sample",
  url: "https://other-supplier.example/v2",
  integer: "25",
  boolean: "yes",
  list: "a-1, b-2",
};

/** What an admin would type: the field's own example, else a value of its type. */
const sampleInput = (field: SettingsField) => field.placeholder ?? SAMPLE[field.type];

/** The form the kind's inputs send, filled with samples. */
function filledForm(fields: readonly SettingsField[]): (input: string) => string {
  const values = new Map(fields.map((field) => [settingInputName(field), sampleInput(field)]));
  return (input) => values.get(input) ?? "";
}

/** The form an account's edit page sends unchanged: each input as it was filled from `settings`. */
function shownForm(fields: readonly SettingsField[], settings: Record<string, unknown>): (input: string) => string {
  return (input) => {
    const field = fields.find((candidate) => settingInputName(candidate) === input);
    const value = field ? settingInputValue(field, settings) : "";
    return value === true ? "yes" : value === false ? "" : value;
  };
}

beforeAll(() => {
  // A secretEnv a sample may name (it reads the variable when the supplier is built).
  process.env.SUPPLIER_SECRET_ACME = "acme-secret";
});
afterAll(() => {
  delete process.env.SUPPLIER_SECRET_ACME;
});

describe("the supplier kinds' registry", () => {
  const kinds = supplierKinds();
  const names = kinds.map((kind) => kind.name);

  it("names each kind once, as SUPPLIER may spell it, and SUPPLIER takes no other", () => {
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect(loadEnv({ SUPPLIER: ` ${name.toUpperCase()} ` }).supplier).toBe(name);
    }
    expect(() => loadEnv({ SUPPLIER: "acme" })).toThrow(`SUPPLIER: must be one of ${names.join(", ")}`);
  });

  it.each(kinds.map((kind) => [kind.name, kind] as const))("%s: one input per setting of its schema", (_, kind) => {
    const properties = Object.keys((z.toJSONSchema(kind.settings) as { properties?: object }).properties ?? {});
    expect(kind.fields.map((field) => field.name).sort()).toEqual(properties.sort());
  });

  it.each(kinds.map((kind) => [kind.name, kind] as const))(
    "%s: accepts what its inputs send, shows it back, and is built from it",
    (_, kind) => {
      const sent = settingsFromForm(kind.fields, filledForm(kind.fields));
      if (!sent.ok) throw new Error(sent.message);
      const settings = kind.settings.parse(sent.settings);
      expect(Object.keys(settings).sort()).toEqual(kind.fields.map((field) => field.name).sort());
      expect(settingsFromForm(kind.fields, shownForm(kind.fields, settings))).toEqual(sent);

      const supplier = buildSupplier({ name: `${kind.name}-sample`, kind: kind.name, settings }, config);
      expect(supplier.name).toBe(`${kind.name}-sample`);
    },
  );

  it.each(kinds.map((kind) => [kind.name, kind] as const))("%s: is built as SUPPLIER, with no settings", (_, kind) => {
    const supplier = buildSupplier({ name: kind.name, kind: kind.name, settings: {} }, config);
    expect(supplier.name).toBe(kind.name);
    for (const call of ["placeTopup", "checkTopup", "verifyPlayer", "redeemCode"] as const)
      expect(typeof supplier[call]).toBe("function");
  });
});

describe("settingsFromForm", () => {
  const fields: SettingsField[] = [
    { name: "timeoutMs", label: "Timeout", type: "integer" },
    { name: "skus", label: "SKUs", type: "list" },
    { name: "down", label: "Down", type: "boolean" },
    { name: "partnerId", label: "Partner", type: "text" },
  ];
  const form = (values: Record<string, string>) => (input: string) => values[input] ?? "";

  it("leaves empty inputs out, splits lists on commas and lines, and reads a checked box as true", () => {
    expect(
      settingsFromForm(
        fields,
        form({ "setting.skus": "br-60,\nbr-325, ", "setting.down": "yes", "setting.timeoutMs": "" }),
      ),
    ).toEqual({ ok: true, settings: { skus: ["br-60", "br-325"], down: true } });
  });

  it("refuses a number input that holds no whole number, naming the setting", () => {
    expect(settingsFromForm(fields, form({ "setting.timeoutMs": "4.5s" }))).toEqual({
      ok: false,
      message: "Settings: timeoutMs: must be a whole number.",
    });
  });
});
