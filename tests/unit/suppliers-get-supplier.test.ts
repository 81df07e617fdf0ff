import { afterEach, describe, expect, it } from "vitest";
import { getSupplier, supplierNames, SupplierConfigError } from "@/lib/suppliers/get-supplier";

const touched = ["SUPPLIER", "H2H_BASE_URL", "H2H_PARTNER_ID", "H2H_SECRET", "H2H_TIMEOUT_MS"] as const;
const saved = Object.fromEntries(touched.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of touched) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

// The module keeps one instance per name for the whole file, so the tests below run in order:
// h2h is first asked for without its environment, then with it.
describe("getSupplier", () => {
  it("knows sandbox and h2h", () => {
    expect(supplierNames).toEqual(["sandbox", "h2h"]);
  });

  it("returns one sandbox per process, also when asked with different spelling", () => {
    const sandbox = getSupplier("sandbox");
    expect(sandbox.name).toBe("sandbox");
    expect(getSupplier("sandbox")).toBe(sandbox);
    expect(getSupplier(" Sandbox ")).toBe(sandbox);
  });

  it("without a name (verify and redeem) uses SUPPLIER, default sandbox", () => {
    delete process.env.SUPPLIER;
    expect(getSupplier()).toBe(getSupplier("sandbox"));
  });

  it("refuses an unknown name with a configuration error that lists the known ones", () => {
    expect(() => getSupplier("acme")).toThrow(SupplierConfigError);
    expect(() => getSupplier("acme")).toThrow(/sandbox, h2h/);
  });

  it("h2h without its environment is a configuration error naming the missing variables", () => {
    for (const name of ["H2H_BASE_URL", "H2H_PARTNER_ID", "H2H_SECRET"]) delete process.env[name];
    expect(() => getSupplier("h2h")).toThrow(/H2H_BASE_URL, H2H_PARTNER_ID, H2H_SECRET/);
    process.env.SUPPLIER = "h2h";
    expect(() => getSupplier()).toThrow(SupplierConfigError);
  });

  it("h2h with its environment is built once, and SUPPLIER=h2h selects it for verify and redeem", () => {
    Object.assign(process.env, { H2H_BASE_URL: "http://127.0.0.1:9", H2H_PARTNER_ID: "p", H2H_SECRET: "s" });
    const h2h = getSupplier("h2h");
    expect(h2h.name).toBe("h2h");
    expect(getSupplier("h2h")).toBe(h2h);
    process.env.SUPPLIER = "h2h";
    expect(getSupplier()).toBe(h2h);
  });
});
