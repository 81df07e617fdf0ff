// The pure parts of admin two-factor: TOTP codes against RFC 6238's SHA-1 test vector (the window of
// one step either side, and the step each code belongs to), and the recovery codes' form and digest.
import { describe, expect, it } from "vitest";
import { matchTotpStep, parseTotpCode, totpUri } from "@/lib/admin-users/admin-totp";
import { generateRecoveryCode, hashRecoveryCode, normaliseRecoveryCode } from "@/lib/admin-users/recovery-codes";

// RFC 6238 appendix B: the ASCII secret "12345678901234567890", at T = 59 s the 8-digit SHA-1 code is
// 94287082, so the 6-digit one is 287082 (step 1); at T = 1111111109 s it is 07081804 (step 37037036).
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("TOTP codes", () => {
  it("accepts the RFC 6238 vector in its own step and one step either side, and names its step", () => {
    expect(matchTotpStep(RFC_SECRET, "287082", 59_000)).toBe(1);
    expect(matchTotpStep(RFC_SECRET, "287 082", 59_000)).toBe(1);
    expect(matchTotpStep(RFC_SECRET, "287082", 89_000)).toBe(1); // one step later
    expect(matchTotpStep(RFC_SECRET, "287082", 1_000)).toBe(1); // one step earlier
    expect(matchTotpStep(RFC_SECRET, "287082", 119_000)).toBeUndefined(); // two steps later
    expect(matchTotpStep(RFC_SECRET, "081804", 1_111_111_109_000)).toBe(37_037_036);
    expect(matchTotpStep(RFC_SECRET, "081805", 1_111_111_109_000)).toBeUndefined();
  });

  it("reads six digits only", () => {
    expect(parseTotpCode(" 123-456 ")).toBe("123456");
    for (const text of ["", "12345", "1234567", "12345a", "ABCD-EFGH-JKLM-NPQR"])
      expect(parseTotpCode(text)).toBeUndefined();
  });

  it("describes the secret for authenticator apps", () => {
    const uri = new URL(totpUri(RFC_SECRET, "ops@example.com"));
    expect(uri.protocol).toBe("otpauth:");
    expect(decodeURIComponent(uri.pathname)).toContain("ops@example.com");
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({
      secret: RFC_SECRET,
      algorithm: "SHA1",
      digits: "6",
      period: "30",
    });
  });
});

describe("recovery codes", () => {
  it("are four groups of four base32 letters, all different", () => {
    const codes = Array.from({ length: 200 }, generateRecoveryCode);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("read as typed, and hash to one digest whatever the spelling", () => {
    const code = "ABCD-EFGH-JKLM-NPQR";
    expect(normaliseRecoveryCode(" abcd efgh-jklm npqr ")).toBe("ABCDEFGHJKLMNPQR");
    expect(hashRecoveryCode("abcdefghjklmnpqr")).toBe(hashRecoveryCode(code));
    expect(hashRecoveryCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRecoveryCode("ABCD-EFGH-JKLM-NPQ1")).toBeUndefined(); // 1 is not base32
    expect(hashRecoveryCode("123456")).toBeUndefined();
  });
});
