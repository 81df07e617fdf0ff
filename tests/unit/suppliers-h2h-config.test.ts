import { describe, expect, it } from "vitest";
import { signH2hRequest } from "@/lib/suppliers/h2h-protocol";
import { createH2hSupplier, h2hConfigFromEnv } from "@/lib/suppliers/h2h-supplier";
import { SupplierConfigError } from "@/lib/suppliers/supplier-config";
import { loadEnv, type EnvSource } from "@/lib/config/env";

/** The h2h settings as a process with `vars` as its environment would read them. */
const h2hFrom = (vars: EnvSource) => h2hConfigFromEnv(loadEnv(vars).h2h);

const validEnv = {
  H2H_BASE_URL: "https://supplier.example/api",
  H2H_PARTNER_ID: "partner-7",
  H2H_SECRET: "super-secret-value",
};

describe("signH2hRequest", () => {
  // Expected values computed independently with:
  //   printf '%s' '<timestamp>.<METHOD>.<path>.<body>' | openssl dgst -sha256 -hmac 'vector-secret' -hex
  it("matches an HMAC-SHA256 computed by openssl over timestamp.method.path.body", () => {
    const body = '{"reference":"SVCAPI-BR-1-abc","sku":"BR-100","game":"br","userId":"12345"}';
    expect(signH2hRequest("vector-secret", "1767225600", "POST", "/v1/topups", body)).toBe(
      "b56f689b7bfa714d9df1c193b21548be958542405054299c4e38ee5189ffcbeb",
    );
  });

  it("signs a GET over an empty body, and upper-cases the method", () => {
    expect(signH2hRequest("vector-secret", "1767225600", "get", "/v1/topups/SVCAPI-BR-1-abc", "")).toBe(
      "972ad855b5ac592e906d0f0e6204e70b45a45f0b9bd6b8bc305b9a88187709fe",
    );
  });
});

describe("h2hConfigFromEnv", () => {
  it("reads the three required variables and defaults the timeout to 5000 ms", () => {
    expect(h2hFrom(validEnv)).toEqual({
      baseUrl: "https://supplier.example/api",
      partnerId: "partner-7",
      secret: "super-secret-value",
      timeoutMs: 5000,
    });
    expect(h2hFrom({ ...validEnv, H2H_TIMEOUT_MS: "1500" }).timeoutMs).toBe(1500);
  });

  it("names every missing variable in one error", () => {
    expect(() => h2hFrom({ H2H_PARTNER_ID: "p" })).toThrow(SupplierConfigError);
    expect(() => h2hFrom({ H2H_PARTNER_ID: "p", H2H_SECRET: "  " })).toThrow(/H2H_BASE_URL, H2H_SECRET/);
  });

  it("refuses a timeout that is not a positive whole number", () => {
    for (const timeout of ["0", "-5", "2.5", "soon"]) {
      expect(() => h2hFrom({ ...validEnv, H2H_TIMEOUT_MS: timeout })).toThrow(/H2H_TIMEOUT_MS/);
    }
  });

  it("never puts the secret in an error message", () => {
    for (const broken of [
      { ...validEnv, H2H_TIMEOUT_MS: "x" },
      { ...validEnv, H2H_BASE_URL: "ftp://x" },
    ]) {
      let message = "";
      try {
        createH2hSupplier(h2hFrom(broken));
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe("");
      expect(message).not.toContain(validEnv.H2H_SECRET);
    }
  });
});

describe("createH2hSupplier", () => {
  it("refuses a base URL it could not sign requests for", () => {
    for (const baseUrl of [
      "not a url",
      "ftp://supplier.example",
      "https://supplier.example/?token=1",
      "https://s.example/#x",
    ]) {
      expect(() => createH2hSupplier({ ...h2hFrom(validEnv), baseUrl })).toThrow(SupplierConfigError);
    }
  });

  it("is named h2h", () => {
    expect(createH2hSupplier(h2hFrom(validEnv)).name).toBe("h2h");
  });
});
