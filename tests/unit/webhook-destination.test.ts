// Webhook destination checks without a database or DNS: IPv6 forms that embed an IPv4 address are
// refused, only the documented ports are accepted outside development, a refusal for a host name
// never repeats what it resolved to, and a failed connection reads the same whatever the cause.
import { describe, expect, it } from "vitest";
import {
  DestinationRefused,
  parseWebhookUrl,
  refusalOfAddress,
  resolveDestination,
  WEBHOOK_PORTS,
  type Resolver,
} from "@/lib/webhooks/check-destination";
import { attemptErrorText } from "@/lib/webhooks/send-webhook";

const EMBEDS = "is an IPv6 address that embeds an IPv4 address";

describe("addresses", () => {
  it.each([
    ["::127.0.0.1", "::7f00:1"],
    ["::7f00:1", "::7f00:1"],
    ["::8.8.8.8", "::808:808"],
    ["::10.0.0.1", "::a00:1"],
    ["64:ff9b::8.8.8.8", "64:ff9b::808:808"],
    ["64:ff9b::a00:1", "64:ff9b::a00:1"],
    ["2002:a00:1::1", "2002:a00:1::1"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    ["::ffff:0:10.0.0.1", "::ffff:0:a00:1"],
  ])("refuses %s, which embeds an IPv4 address, even with the development switch", (address, compact) => {
    expect(refusalOfAddress(address, false)).toBe(`${compact} ${EMBEDS}`);
    expect(refusalOfAddress(address, true)).toBe(`${compact} ${EMBEDS}`);
  });

  it("checks an IPv4-mapped address as the IPv4 address it is", () => {
    expect(refusalOfAddress("::ffff:10.0.0.1", false)).toBe("10.0.0.1 is a private address");
    expect(refusalOfAddress("::ffff:127.0.0.1", false)).toBe("127.0.0.1 is a loopback address");
    expect(refusalOfAddress("::ffff:93.184.216.34", false)).toBeUndefined();
  });

  it("still accepts public addresses and refuses :: and ::1", () => {
    expect(refusalOfAddress("93.184.216.34", false)).toBeUndefined();
    expect(refusalOfAddress("2606:4700::1111", false)).toBeUndefined();
    expect(refusalOfAddress("::1", false)).toBe("::1 is a loopback address");
    expect(refusalOfAddress("::", false)).toBe(":: is a unspecified address");
  });
});

describe("ports", () => {
  it("accepts only the documented ports outside development", () => {
    expect(WEBHOOK_PORTS).toEqual([443, 8443]);
    for (const url of ["https://hooks.example/", "https://hooks.example:443/", "https://hooks.example:8443/x"])
      expect(parseWebhookUrl(url, false).hostname).toBe("hooks.example");
    for (const port of [22, 80, 5432, 6379, 8080, 9200])
      expect(() => parseWebhookUrl(`https://hooks.example:${port}/`, false)).toThrow(
        "the URL's port must be one of 443, 8443",
      );
  });

  it("accepts any port and http with the development switch", () => {
    expect(parseWebhookUrl("http://127.0.0.1:54321/hook", true).port).toBe("54321");
    expect(parseWebhookUrl("https://hooks.example:8080/", true).port).toBe("8080");
  });
});

describe("refusals for host names", () => {
  const resolve: Resolver = async (hostname) => {
    const table: Record<string, string[]> = {
      "internal.example": ["10.1.2.3"],
      "compat.example": ["::10.1.2.3"],
      "mixed.example": ["93.184.216.34", "fd12:3456::1"],
    };
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error("queryA ESERVFAIL corp.internal"), { code: "ESERVFAIL" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

  it.each([
    ["https://internal.example/", "internal.example resolves to a non-public address"],
    ["https://compat.example/", "compat.example resolves to a non-public address"],
    ["https://mixed.example/", "mixed.example resolves to a non-public address"],
    ["https://nowhere.example/", "nowhere.example does not resolve"],
  ])("%s: %s, naming no address or resolver error", async (url, reason) => {
    const refused = await resolveDestination(url, { allowPrivate: false, resolve }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DestinationRefused);
    expect((refused as Error).message).toBe(reason);
  });
});

describe("delivery failure texts", () => {
  it("read the same for a refused, filtered, unreachable or reset connection", () => {
    const texts = [
      attemptErrorText({ code: "ECONNREFUSED", message: "connect ECONNREFUSED 203.0.113.5:8443" }, false, 15_000),
      attemptErrorText({ code: "ETIMEDOUT", message: "connect ETIMEDOUT 203.0.113.5:8443" }, false, 15_000),
      attemptErrorText({ code: "EHOSTUNREACH", message: "connect EHOSTUNREACH 203.0.113.5:8443" }, false, 15_000),
      attemptErrorText({ code: "ENETUNREACH", message: "connect ENETUNREACH 203.0.113.5:8443" }, false, 15_000),
      attemptErrorText("timeout", false, 15_000),
      attemptErrorText({ code: "ECONNRESET", message: "socket hang up" }, true, 15_000),
    ];
    expect(new Set(texts)).toEqual(new Set(["connection failed"]));
  });

  it("keep the timeout and TLS errors once connected", () => {
    expect(attemptErrorText("timeout", true, 15_000)).toBe("no answer within 15 s");
    expect(
      attemptErrorText({ code: "DEPTH_ZERO_SELF_SIGNED_CERT", message: "self-signed certificate" }, true, 15_000),
    ).toBe("self-signed certificate");
  });
});
