// SSRF safety: in production mode (no development switch) loopback, private, link-local, CGNAT,
// multicast, unspecified and metadata destinations are refused, whether written as an address or
// reached through a host name; the connection goes to the address that was checked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addWebhookEndpoint } from "@/lib/webhooks/add-webhook-endpoint";
import { listWebhookEndpoints } from "@/lib/webhooks/list-webhook-endpoints";
import {
  refusalOfAddress,
  webhookPolicyFromEnv,
  type DestinationPolicy,
  type Resolver,
} from "@/lib/webhooks/check-destination";
import { assertProductionSecrets, loadEnv } from "@/lib/config/env";
import { sql, firstOf, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { deliverWebhook, deliveriesOf, recordEvent } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";
import { freePort } from "../helpers/free-port";

let receiver: WebhookReceiver;
let accountId: number;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  accountId = (await createAccount()).accountId;
});
afterAll(async () => {
  await receiver?.close();
});

/** A resolver for made-up names, so the test needs no DNS and controls every answer. */
function resolverOf(table: Record<string, string[]>, calls: string[] = []): Resolver {
  return async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`no such host ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

const names = resolverOf({
  "hooks.example": ["93.184.216.34"],
  "internal.example": ["10.1.2.3"],
  "metadata.example": ["169.254.169.254"],
  "mixed.example": ["93.184.216.34", "192.168.1.10"],
  "v6-local.example": ["fd12:3456::1"],
  "loopback.example": ["127.0.0.1"],
  "compat.example": ["::10.1.2.3"],
});
const production: DestinationPolicy = { allowPrivate: false, resolve: names };

async function refusal(url: string, policy = production) {
  const result = await addWebhookEndpoint({ accountId, url, actor: "test", policy });
  return result.status === "refused_url" ? result.reason : `not refused: ${result.status}`;
}

describe("in production mode", () => {
  it.each([
    ["https://127.0.0.1/hook", "127.0.0.1 is a loopback address"],
    ["https://10.0.0.1/hook", "10.0.0.1 is a private address"],
    ["https://172.16.5.4/hook", "172.16.5.4 is a private address"],
    ["https://192.168.0.10/hook", "192.168.0.10 is a private address"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254 is a cloud metadata address"],
    ["https://169.254.10.10/", "169.254.10.10 is a linkLocal address"],
    ["https://100.64.0.1/", "100.64.0.1 is a carrierGradeNat address"],
    ["https://224.0.0.1/", "224.0.0.1 is a multicast address"],
    ["https://0.0.0.0/", "0.0.0.0 is a unspecified address"],
    ["https://[::1]/", "::1 is a loopback address"],
    ["https://[fe80::1]/", "fe80::1 is a linkLocal address"],
    ["https://[fc00::5]/", "fc00::5 is a uniqueLocal address"],
    ["https://[fd00:ec2::254]/", "fd00:ec2::254 is a cloud metadata address"],
    ["https://[::ffff:127.0.0.1]/", "127.0.0.1 is a loopback address"],
    ["https://[::127.0.0.1]/", "::7f00:1 is an IPv6 address that embeds an IPv4 address"],
    ["https://[::8.8.8.8]/", "::808:808 is an IPv6 address that embeds an IPv4 address"],
    ["https://[64:ff9b::10.0.0.1]/", "64:ff9b::a00:1 is an IPv6 address that embeds an IPv4 address"],
    ["https://[2002:a00:1::1]/", "2002:a00:1::1 is an IPv6 address that embeds an IPv4 address"],
    // A name's refusal never says what it resolved to: the DNS answer is not the account's to see.
    ["https://internal.example/hook", "internal.example resolves to a non-public address"],
    ["https://metadata.example/", "metadata.example resolves to a non-public address"],
    ["https://mixed.example/", "mixed.example resolves to a non-public address"],
    ["https://v6-local.example/", "v6-local.example resolves to a non-public address"],
    ["https://compat.example/", "compat.example resolves to a non-public address"],
    ["https://nowhere.example/", "nowhere.example does not resolve"],
    ["https://hooks.example:8080/hook", "the URL's port must be one of 443, 8443"],
    ["https://hooks.example:22/", "the URL's port must be one of 443, 8443"],
    ["https://93.184.216.34:6379/", "the URL's port must be one of 443, 8443"],
    ["http://hooks.example/hook", "the URL must be https"],
    ["https://user:pw@hooks.example/", "the URL must not contain a user name or password"],
    ["ftp://hooks.example/", "the URL must be https"],
    ["not a url", "not a URL"],
  ])("refuses %s", async (url, reason) => {
    expect(await refusal(url)).toBe(reason);
  });

  it.each(["https://hooks.example/hook", "https://hooks.example:443/hook", "https://hooks.example:8443/hook"])(
    "accepts %s: https on a documented port, to public addresses only",
    async (url) => {
      const result = await addWebhookEndpoint({ accountId, url, actor: "test", policy: production });
      expect(result.status).toBe("added");
      await sql(`DELETE FROM webhook_endpoints WHERE account_id = $1`, [accountId]);
    },
  );

  it("refuses at delivery time too: a name that turned private since registration gets no request", async () => {
    const url = "https://rebind.example/hook";
    const added = await addWebhookEndpoint({
      accountId,
      url,
      actor: "test",
      policy: { allowPrivate: false, resolve: resolverOf({ "rebind.example": ["93.184.216.34"] }) },
    });
    expect(added.status).toBe("added");
    const endpointId = (added as { endpointId: number }).endpointId;
    const event = await recordEvent(accountId, "endpoint.test", {}, endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    const result = await deliverWebhook(delivery.id, {
      policy: { allowPrivate: false, resolve: resolverOf({ "rebind.example": ["127.0.0.1"] }) },
    });
    expect(result).toMatchObject({
      outcome: "retrying",
      error: "destination refused: rebind.example resolves to a non-public address",
    });
    const attempt = await sqlRow(`SELECT http_status, error FROM webhook_attempts WHERE delivery_id = $1`, [
      delivery.id,
    ]);
    expect(attempt.http_status).toBeNull();
    expect(receiver.received).toHaveLength(0);
    await sql(`DELETE FROM webhook_endpoints WHERE account_id = $1`, [accountId]);
  });

  it("WEBHOOKS_ALLOW_PRIVATE=1 is refused in production", () => {
    const production = loadEnv({ ...process.env, NODE_ENV: "production", WEBHOOKS_ALLOW_PRIVATE: "1" });
    expect(() => webhookPolicyFromEnv(undefined, production)).toThrow("refused in production");
    expect(() => assertProductionSecrets(production)).toThrow("WEBHOOKS_ALLOW_PRIVATE=1");
    const switchedOff = loadEnv({ ...process.env, NODE_ENV: "production", WEBHOOKS_ALLOW_PRIVATE: "0" });
    expect(webhookPolicyFromEnv(undefined, switchedOff).allowPrivate).toBe(false);
  });
});

describe("with the development switch", () => {
  const development: DestinationPolicy = { allowPrivate: true, resolve: names };

  it("allows http and loopback or private addresses, but never metadata addresses", async () => {
    expect(refusalOfAddress("127.0.0.1", true)).toBeUndefined();
    expect(refusalOfAddress("10.0.0.1", true)).toBeUndefined();
    expect(refusalOfAddress("169.254.169.254", true)).toBe("169.254.169.254 is a cloud metadata address");
    expect(refusalOfAddress("fd00:ec2::254", true)).toBe("fd00:ec2::254 is a cloud metadata address");
    expect(await refusal("http://metadata.example/", development)).toBe(
      "metadata.example resolves to a non-public address",
    );
    expect(await refusal("http://compat.example/", development)).toBe(
      "compat.example resolves to a non-public address",
    );
  });

  it("connects to the address it checked, not to whatever DNS says at connect time", async () => {
    // The name exists only in the injected resolver: the request can reach the receiver only
    // through the checked address handed to the socket. The resolver is asked once per delivery.
    const calls: string[] = [];
    const resolve = resolverOf({ "only-in-test.invalid": ["127.0.0.1"] }, calls);
    const url = receiver.url.replace("127.0.0.1", "only-in-test.invalid");
    const added = await addWebhookEndpoint({ accountId, url, actor: "test", policy: { allowPrivate: true, resolve } });
    expect(added.status).toBe("added");
    const endpointId = (added as { endpointId: number }).endpointId;
    const event = await recordEvent(accountId, "endpoint.test", {}, endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    calls.length = 0;
    expect(await deliverWebhook(delivery.id, { policy: { allowPrivate: true, resolve } })).toMatchObject({
      outcome: "delivered",
      httpStatus: 200,
    });
    expect(calls).toEqual(["only-in-test.invalid"]);
    const request = receiver.received.at(-1)!;
    expect(request.headers["webhook-id"]).toBe(event.id);
    expect(request.headers.host).toMatch(/^only-in-test\.invalid:\d+$/);
  });

  it("records and lists the same text for a closed port and one that does not answer the connect", async () => {
    // A port nobody listens on (refused at once) and an address no packet reaches (a connect that
    // times out, or unreachable where no IPv6 route exists; IPv4 here may meet a transparent proxy):
    // the endpoint's error must not tell them apart.
    const closed = await freePort();
    const resolve = resolverOf({ "closed.test": ["127.0.0.1"], "filtered.test": ["fd12:3456::1"] });
    const errors: (string | null)[] = [];
    for (const url of [`http://closed.test:${closed}/hook`, "http://filtered.test:8443/hook"]) {
      const added = await addWebhookEndpoint({
        accountId,
        url,
        actor: "test",
        policy: { allowPrivate: true, resolve },
      });
      expect(added.status).toBe("added");
      const endpointId = (added as { endpointId: number }).endpointId;
      const event = await recordEvent(accountId, "endpoint.test", {}, endpointId);
      const delivery = firstOf(await deliveriesOf(event.id));
      const result = await deliverWebhook(delivery.id, { policy: { allowPrivate: true, resolve }, timeoutMs: 1000 });
      expect(result).toMatchObject({ outcome: "retrying", error: "connection failed" });
      const listed = (await listWebhookEndpoints(accountId)).find((endpoint) => endpoint.id === endpointId);
      errors.push(listed?.lastError ?? null);
    }
    expect(errors).toEqual(["connection failed", "connection failed"]);
    await sql(`DELETE FROM webhook_endpoints WHERE account_id = $1`, [accountId]);
  });
});
