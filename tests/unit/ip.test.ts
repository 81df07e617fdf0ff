import { describe, expect, it } from "vitest";
import { ipInAnyRange, normaliseCidr, normaliseIp, resolveClientIp } from "@/lib/net/ip";

describe("normaliseCidr", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7/32"],
    [" 203.0.113.7 ", "203.0.113.7/32"],
    ["203.0.113.77/24", "203.0.113.0/24"],
    ["2001:db8::1", "2001:db8::1/128"],
    ["2001:DB8:0:0::/32", "2001:db8::/32"],
    ["::ffff:198.51.100.9", "198.51.100.9/32"],
    ["::ffff:10.0.0.0/104", "10.0.0.0/8"],
  ])("%s -> %s", (input, expected) => expect(normaliseCidr(input)).toBe(expected));

  it.each(["", "localhost", "300.1.1.1", "1.2.3.4/33", "2001:db8::/129", "1.2.3.4/-1", "1.2.3.4/x", "1.2.3"])(
    "rejects %j",
    (input) => expect(normaliseCidr(input)).toBeUndefined(),
  );
});

describe("ipInAnyRange", () => {
  it("matches v4, v6 and IPv4-mapped addresses against ranges of their family", () => {
    expect(ipInAnyRange("203.0.113.9", ["203.0.113.0/24"])).toBe(true);
    expect(ipInAnyRange("::ffff:203.0.113.9", ["203.0.113.0/24"])).toBe(true);
    expect(ipInAnyRange("203.0.114.9", ["203.0.113.0/24"])).toBe(false);
    expect(ipInAnyRange("2001:db8::5", ["2001:db8::/32"])).toBe(true);
    expect(ipInAnyRange("2001:db9::5", ["2001:db8::/32"])).toBe(false);
    expect(ipInAnyRange("not-an-ip", ["0.0.0.0/0"])).toBe(false);
  });
});

describe("resolveClientIp", () => {
  it("ignores X-Forwarded-For from an untrusted peer", () => {
    expect(resolveClientIp("198.51.100.1", "203.0.113.7", [])).toBe("198.51.100.1");
    expect(resolveClientIp("198.51.100.1", "203.0.113.7", ["10.0.0.0/8"])).toBe("198.51.100.1");
  });

  it("believes the first untrusted hop from the right when the peer is a trusted proxy", () => {
    expect(resolveClientIp("10.0.0.2", "203.0.113.7", ["10.0.0.0/8"])).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.2", "6.6.6.6, 203.0.113.7, 10.0.0.9", ["10.0.0.0/8"])).toBe("203.0.113.7");
    expect(resolveClientIp("::ffff:10.0.0.2", "203.0.113.7", ["10.0.0.0/8"])).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.2", "garbage", ["10.0.0.0/8"])).toBe("10.0.0.2");
  });

  it("unwraps IPv4-mapped peers", () => {
    expect(normaliseIp("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(resolveClientIp("::ffff:127.0.0.1", null, [])).toBe("127.0.0.1");
  });
});
