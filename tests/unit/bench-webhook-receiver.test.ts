// The benchmark's webhook receiver (bench/webhook-receiver.ts) decides whether a bench run "lost
// nothing" and whether signatures verify, so it is tested like any other check: real HTTP, real
// signatures from the standardwebhooks package, and a tampered body that must fail.
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { BenchWebhookReceiver } from "@/bench/webhook-receiver";
import { roundModes } from "@/bench/webhook-phase";

const receivers: BenchWebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function post(url: string, id: string, body: string, secret: string, tamper = false) {
  const now = new Date();
  const signature = new Webhook(secret).sign(id, now, body);
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": signature,
    },
    body: tamper ? body.replace("completed", "cancelled") : body,
  });
  await response.text();
  return response.status;
}

describe("the bench's webhook receiver", () => {
  it("answers 200, counts requests and distinct webhook-ids, and verifies with each account's own secret", async () => {
    const receiver = await BenchWebhookReceiver.start();
    receivers.push(receiver);
    const secretA = `whsec_${randomBytes(24).toString("base64")}`;
    const secretB = `whsec_${randomBytes(24).toString("base64")}`;
    receiver.setSecret(1, secretA);
    receiver.setSecret(2, secretB);
    const body = JSON.stringify({
      type: "order.completed",
      timestamp: new Date().toISOString(),
      data: { status: "completed" },
    });

    expect(await post(receiver.urlFor(1), "evt_a", body, secretA)).toBe(200);
    expect(await post(receiver.urlFor(1), "evt_a", body, secretA)).toBe(200); // a redelivery: same id
    expect(await post(receiver.urlFor(2), "evt_b", body, secretB)).toBe(200);
    expect(await post(receiver.urlFor(2), "evt_c", body, secretA)).toBe(200); // signed with another endpoint's secret
    expect(await post(receiver.urlFor(1), "evt_d", body, secretA, true)).toBe(200); // body changed after signing

    const tally = receiver.take(100);
    expect(tally).toMatchObject({ requests: 5, events: 4, sampled: 5, verified: 3 });
    expect(tally.failures).toHaveLength(2);
    expect(tally.failures.join("\n")).toMatch(/evt_c/);
    expect(tally.failures.join("\n")).toMatch(/evt_d/);
    // take() empties it: the next round counts from zero.
    expect(receiver.take(100)).toMatchObject({ requests: 0, events: 0, sampled: 0, lastAt: undefined });
  });

  it("verifies an evenly spread sample when asked for fewer than arrived", async () => {
    const receiver = await BenchWebhookReceiver.start();
    receivers.push(receiver);
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    receiver.setSecret(3, secret);
    for (let i = 0; i < 10; i++) await post(receiver.urlFor(3), `evt_${i}`, `{"n":${i}}`, secret);
    expect(receiver.take(3)).toMatchObject({ requests: 10, events: 10, sampled: 3, verified: 3 });
  });
});

describe("the webhook rounds' order", () => {
  it("gives every mode one round per cycle and mirrors every other cycle", () => {
    expect(roundModes(1)).toEqual(["off", "on", "deferred"]);
    expect(roundModes(2)).toEqual(["off", "on", "deferred", "deferred", "on", "off"]);
  });
});
