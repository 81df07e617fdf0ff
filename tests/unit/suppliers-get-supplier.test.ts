import { describe, expect, it } from "vitest";
import { ConfigError, loadEnv } from "@/lib/config/env";
import { getSupplier, SupplierConfigError } from "@/lib/suppliers/get-supplier";
import { supplierKinds } from "@/lib/suppliers/kinds";

// The module keeps one instance per name for the whole file, so the tests below run in order:
// h2h is first asked for without its configuration, then with it.
describe("getSupplier", () => {
  it("knows sandbox and h2h", () => {
    expect(supplierKinds().map((kind) => kind.name)).toEqual(["sandbox", "h2h"]);
  });

  it("returns one sandbox per process, also when asked with different spelling", () => {
    const sandbox = getSupplier("sandbox");
    expect(sandbox.name).toBe("sandbox");
    expect(getSupplier("sandbox")).toBe(sandbox);
    expect(getSupplier(" Sandbox ")).toBe(sandbox);
  });

  it("without a name (verify and redeem) uses SUPPLIER, default sandbox", () => {
    expect(loadEnv({}).supplier).toBe("sandbox");
    expect(loadEnv({ SUPPLIER: " H2H " }).supplier).toBe("h2h");
    expect(getSupplier()).toBe(getSupplier("sandbox"));
  });

  it("refuses an unknown name with a configuration error that lists the known ones", () => {
    expect(() => getSupplier("acme")).toThrow(SupplierConfigError);
    expect(() => getSupplier("acme")).toThrow(/sandbox, h2h/);
    expect(() => loadEnv({ SUPPLIER: "acme" })).toThrow(ConfigError);
    expect(() => loadEnv({ SUPPLIER: "acme" })).toThrow(/SUPPLIER: must be one of sandbox, h2h/);
  });

  it("h2h without its configuration is a configuration error naming the missing variables", () => {
    expect(() => getSupplier("h2h", loadEnv({}))).toThrow(/H2H_BASE_URL, H2H_PARTNER_ID, H2H_SECRET/);
    expect(() => getSupplier("h2h", loadEnv({ H2H_PARTNER_ID: "p" }))).toThrow(SupplierConfigError);
  });

  it("h2h with its configuration is built once", () => {
    const configured = loadEnv({ H2H_BASE_URL: "http://127.0.0.1:9", H2H_PARTNER_ID: "p", H2H_SECRET: "s" });
    const h2h = getSupplier("h2h", configured);
    expect(h2h.name).toBe("h2h");
    expect(getSupplier("h2h")).toBe(h2h);
  });
});
