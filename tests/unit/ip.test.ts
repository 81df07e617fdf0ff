import { describe, expect, it } from "vitest";
import {
  ipInAnyRange,
  normaliseCidr,
  normaliseIp,
  parseForwardedHop,
  parseTrustedProxies,
  resolveClientIp,
} from "@/lib/net/ip";

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

describe("X-Forwarded-For entries with ports", () => {
  it.each([
    ["203.0.113.9:4431", "203.0.113.9"],
    ["[2001:db8::1]:443", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["[::ffff:203.0.113.9]:80", "203.0.113.9"],
    ["2001:db8::1", "2001:db8::1"],
    ["2001:db8::443", "2001:db8::443"],
    ["::ffff:203.0.113.9", "203.0.113.9"],
    [" 203.0.113.9 ", "203.0.113.9"],
  ])("%j is %s", (entry, expected) => expect(parseForwardedHop(entry)).toBe(expected));

  it.each([
    "203.0.113.9:",
    "203.0.113.9:99999x",
    "[203.0.113.9]:80",
    "[2001:db8::1]:",
    "2001:db8::1]:443",
    "host:80",
    "unknown",
    "",
  ])("refuses %j", (entry) => expect(parseForwardedHop(entry)).toBeUndefined());

  it("resolves the client behind trusted proxies whatever the entries carry", () => {
    const trusted = ["10.0.0.0/8", "2001:db8:ffff::/48"];
    expect(resolveClientIp("10.0.0.2", "203.0.113.9:4431", trusted)).toBe("203.0.113.9");
    expect(resolveClientIp("10.0.0.2", "[2001:db8::1]:443, 10.0.0.9:8080", trusted)).toBe("2001:db8::1");
    expect(resolveClientIp("10.0.0.2", "6.6.6.6:1, [2001:db8:ffff::7]:443", trusted)).toBe("6.6.6.6");
    // A port on a trusted hop does not make it untrusted.
    expect(resolveClientIp("10.0.0.2", "198.51.100.4, 10.0.0.9:8080", trusted)).toBe("198.51.100.4");
    // Garbage (a port without its address) still stops the walk at the peer.
    expect(resolveClientIp("10.0.0.2", "203.0.113.9, :443", trusted)).toBe("10.0.0.2");
  });
});

describe("parseTrustedProxies", () => {
  it("normalises valid entries", () => {
    expect(parseTrustedProxies(["10.0.0.5", "10.1.2.3/8", "2001:DB8::/32"])).toEqual([
      "10.0.0.5/32",
      "10.0.0.0/8",
      "2001:db8::/32",
    ]);
  });

  it.each(["10.0.0.1:8080", "10.0.0.0/33", "proxy.internal", "[2001:db8::1]:443"])(
    "names the bad entry %j",
    (entry) => {
      expect(() => parseTrustedProxies(["10.0.0.0/8", entry])).toThrow(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`,
      );
    },
  );
});
