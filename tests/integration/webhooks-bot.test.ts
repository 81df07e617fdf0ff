// /webhook and /lowbalance in the real bot against the local Bot API server. Deliveries triggered
// from the bot are made by the delivery job and checked at a local receiver.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { useBotHarness } from "../helpers/bot-harness";
import { sql, sqlRow } from "../helpers/db";
import type { FakeUser } from "../helpers/fake-telegram";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { deliverWebhook, DEV_POLICY } from "../helpers/webhooks";

const HANA: FakeUser = { id: 4_500_000_001, first_name: "Hana", username: "hana_hooks" };
const IVO: FakeUser = { id: 4_500_000_002, first_name: "Ivo", username: "ivo_hooks" };

let receiver: WebhookReceiver;

// The development switch: the receiver is on 127.0.0.1 over http. Set before anything reads the
// configuration (lib/config reads it once), so the bot's endpoint checks allow it.
process.env.WEBHOOKS_ALLOW_PRIVATE = "1";

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver?.close();
});

const bot = useBotHarness();
const { say } = bot;
const accountId = bot.accountIdOf;

beforeAll(async () => {
  await bot.fake.send(HANA, "/start");
  await bot.fake.send(IVO, "/start");
});

async function deliverPending(endpointId: number) {
  const pending = await sql(
    `SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' ORDER BY id`,
    [endpointId],
  );
  for (const delivery of pending) await deliverWebhook(delivery.id, { policy: DEV_POLICY });
}

describe("/webhook", () => {
  let endpointId: number;
  let secret: string;

  it("add: registers the endpoint and shows its secret once", async () => {
    const reply = await say(HANA, `/webhook add ${receiver.url} order.completed, order.cancelled`);
    const id = /Endpoint #(\d+) added/.exec(reply);
    expect(id, reply).not.toBeNull();
    endpointId = Number(id![1]);
    expect(reply).toContain("Events: order.completed, order.cancelled");
    secret = /whsec_[A-Za-z0-9+/=]+/.exec(reply)![0];
    const row = await sqlRow(`SELECT account_id, url, event_types, secret FROM webhook_endpoints WHERE id = $1`, [
      endpointId,
    ]);
    expect(row).toMatchObject({
      account_id: await accountId(HANA),
      url: receiver.url,
      event_types: ["order.completed", "order.cancelled"],
    });
    // Stored encrypted, never as the secret itself.
    expect(row.secret).not.toContain(secret.slice(6));
    expect(
      await sql(`SELECT action FROM audit_log WHERE action = 'webhook.endpoint_add' AND target_id = $1`, [
        String(endpointId),
      ]),
    ).toHaveLength(1);
  });

  it("add: refuses bad URLs and unknown event types", async () => {
    expect(await say(HANA, "/webhook add https://169.254.169.254/latest")).toBe(
      "That URL cannot receive webhooks: 169.254.169.254 is a cloud metadata address.",
    );
    expect(await say(HANA, "/webhook add ftp://example.com/")).toBe(
      "That URL cannot receive webhooks: the URL must be http or https.",
    );
    expect(await say(HANA, `/webhook add ${receiver.url} order.shipped`)).toContain(
      "Unknown event type: order.shipped",
    );
  });

  it("list: shows the endpoint without its secret; another holder sees none of it", async () => {
    const list = await say(HANA, "/webhook list");
    expect(list).toContain(`#${endpointId} ${receiver.url}`);
    expect(list).toContain("events: order.completed, order.cancelled");
    expect(list).not.toContain("whsec_");
    expect(await say(IVO, "/webhook list")).toBe("You have no webhook endpoints. /webhook add <https-url> adds one.");
    expect(await say(IVO, `/webhook test ${endpointId}`)).toBe(
      `You have no endpoint #${endpointId}. /webhook list shows yours.`,
    );
    expect(await say(IVO, `/webhook remove ${endpointId}`)).toBe(
      `You have no endpoint #${endpointId}. /webhook list shows yours.`,
    );
  });

  it("test: queues an endpoint.test event that the receiver verifies with the secret", async () => {
    const reply = await say(HANA, `/webhook test ${endpointId}`);
    expect(reply).toMatch(new RegExp(`^Test event evt_\\S+ \\(sequence 1\\) queued for endpoint #${endpointId}\\.$`));
    await deliverPending(endpointId);
    const request = receiver.received.at(-1)!;
    expect(new Webhook(secret).verify(request.body, request.headers)).toMatchObject({
      type: "endpoint.test",
      data: { endpointId },
    });
  });

  it("secret: rotates, shows the new one once; deliveries then verify with either for a day", async () => {
    const reply = await say(HANA, `/webhook secret ${endpointId}`);
    const rotated = /whsec_[A-Za-z0-9+/=]+/.exec(reply)![0];
    expect(rotated).not.toBe(secret);
    expect(reply).toContain("carry signatures with both the new and the old secret");
    await say(HANA, `/webhook test ${endpointId}`);
    await deliverPending(endpointId);
    const request = receiver.received.at(-1)!;
    for (const key of [rotated, secret])
      expect(new Webhook(key).verify(request.body, request.headers)).toMatchObject({ type: "endpoint.test" });
  });

  it("test: at most 10 test events an hour; the next is refused and queues nothing", async () => {
    const tests = async () =>
      (await sql(`SELECT count(*)::int AS n FROM webhook_events WHERE type = 'endpoint.test'`))[0]!.n as number;
    // Two were sent above.
    expect(await tests()).toBe(2);
    for (let i = 3; i <= 10; i++) expect(await say(HANA, `/webhook test ${endpointId}`)).toMatch(/^Test event evt_/);
    expect(await say(HANA, `/webhook test ${endpointId}`)).toMatch(
      /^At most 10 test events an hour: try again in \d+ min\.$/,
    );
    expect(await tests()).toBe(10);
  });

  it("refuses a sixth enabled endpoint", async () => {
    for (let i = 2; i <= 5; i++) expect(await say(HANA, `/webhook add ${receiver.url}/${i}`)).toContain("added");
    expect(await say(HANA, `/webhook add ${receiver.url}/6`)).toBe(
      "You already have 5 endpoints: remove one first (/webhook list).",
    );
  });

  it("list: shows when a failing endpoint is paused", async () => {
    await sql(
      `UPDATE webhook_endpoints SET failing_since = now(), consecutive_failures = 3, paused_until = now() + interval '4 seconds' WHERE id = $1`,
      [endpointId],
    );
    expect(await say(HANA, "/webhook list")).toMatch(/failing since .+; paused until /);
    await sql(
      `UPDATE webhook_endpoints SET failing_since = NULL, consecutive_failures = 0, paused_until = NULL WHERE id = $1`,
      [endpointId],
    );
  });

  it("remove: deletes the endpoint", async () => {
    expect(await say(HANA, `/webhook remove ${endpointId}`)).toBe(`Endpoint #${endpointId} removed.`);
    expect(await sql(`SELECT 1 FROM webhook_endpoints WHERE id = $1`, [endpointId])).toHaveLength(0);
    expect(await say(HANA, "/webhook")).toContain("Usage:");
  });
});

describe("/lowbalance", () => {
  it("sets, shows and clears the threshold", async () => {
    expect(await say(IVO, "/lowbalance 12.50")).toBe(
      "A balance.low webhook event is sent when your balance falls below $12.50.",
    );
    expect(await sql(`SELECT low_balance_threshold_cents FROM accounts WHERE telegram_id = $1`, [IVO.id])).toEqual([
      { low_balance_threshold_cents: 1250 },
    ]);
    expect(await say(IVO, "/lowbalance")).toBe("Usage: /lowbalance <usd> or /lowbalance off\nNow: $12.50");
    expect(await say(IVO, "/lowbalance -3")).toContain("Amount must be a positive number");
    expect(await say(IVO, "/lowbalance off")).toBe("Low-balance alerts are off.");
    expect(await sql(`SELECT low_balance_threshold_cents FROM accounts WHERE telegram_id = $1`, [IVO.id])).toEqual([
      { low_balance_threshold_cents: null },
    ]);
  });

  it("is listed in /help", async () => {
    const help = await say(IVO, "/help");
    expect(help).toContain("/webhook add");
    expect(help).toContain("/lowbalance");
  });
});
