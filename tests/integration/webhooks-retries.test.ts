// Delivery attempts with time under the test's control: each attempt is run directly with the
// `now` the schedule asked for, against a local receiver over real HTTP. No dispatcher runs here
// (the one worker started sends only the bot's notices), so the delivery's next_attempt_at (what
// the dispatcher claims by) only proves when it was due; the running dispatcher's retries are
// tests/integration/webhooks-dispatch-retries.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS } from "@/lib/webhooks/sql/deliver-webhook";
import { RETRY_SCHEDULE_MS, MAX_ATTEMPTS } from "@/lib/webhooks/retry-schedule";
import { MAX_RESPONSE_BYTES } from "@/lib/webhooks/send-webhook";
import { sql, sqlRow, firstOf } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { openHolderTestAccount } from "@/lib/wallet/test-wallet";
import { WebhookReceiver } from "../helpers/webhook-receiver";
import { FakeTelegram } from "../helpers/fake-telegram";
import { startNoticeWorker, type NoticeWorker } from "../helpers/bot-notices";
import { addEndpoint, deliverWebhook, DEV_POLICY, deliveriesOf, recordEvent } from "../helpers/webhooks";
import { useCleanDatabase } from "../helpers/clean-database";

let receiver: WebhookReceiver;

useCleanDatabase({ catalog: false });
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await receiver?.close();
});

/** Makes attempts until the delivery is finished, each at the time the previous one scheduled. */
async function walk(deliveryId: number, start: Date, maxAttempts = MAX_ATTEMPTS) {
  const results = [];
  let now = start;
  for (let i = 0; i < maxAttempts; i++) {
    const result = await deliverWebhook(deliveryId, { now, policy: DEV_POLICY });
    const stored = await sqlRow(`SELECT next_attempt_at FROM webhook_deliveries WHERE id = $1`, [deliveryId]);
    results.push({ now, result, nextAttemptAt: stored.next_attempt_at as Date | null });
    if (result.outcome !== "retrying") break;
    now = result.nextAttemptAt;
  }
  return results;
}

function requestsFor(eventId: string) {
  return receiver.received.filter((r) => r.headers["webhook-id"] === eventId);
}

/** What the worker's notice jobs sent to `chatId` through a local Bot API (owners' notices to `ownerChat`). */
async function botNoticesTo(chatId: number, ownerChat: number): Promise<string[]> {
  const fake = await FakeTelegram.start();
  let notices: NoticeWorker | undefined;
  try {
    notices = await startNoticeWorker(fake, ownerChat);
    await notices.allSent();
    return notices.textsTo(chatId);
  } finally {
    await notices?.stop();
    await fake.close();
  }
}
describe("retries", () => {
  it("500 three times then 200: four attempts, one webhook-id, spaced 5 s, 5 min, 30 min (±10%)", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", { hello: "world" }, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext({ status: 500, body: "boom" }, { status: 500 }, { status: 500 }, { status: 200 });

    const start = new Date();
    const results = await walk(delivery.id, start);
    expect(results.map((r) => r.result.outcome)).toEqual(["retrying", "retrying", "retrying", "delivered"]);

    const requests = requestsFor(event.id);
    expect(requests).toHaveLength(4);
    // Same id and byte-identical body on every attempt; the timestamp is the attempt's own.
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    const stamps = requests.map((r) => Number(r.headers["webhook-timestamp"]));
    const gaps = stamps.slice(1).map((s, i) => s - stamps[i]!);
    for (const [i, gap] of gaps.entries()) {
      const planned = RETRY_SCHEDULE_MS[i + 1]! / 1000;
      expect(gap, `gap before attempt ${i + 2}`).toBeGreaterThanOrEqual(Math.floor(planned * 0.9) - 1);
      expect(gap, `gap before attempt ${i + 2}`).toBeLessThanOrEqual(Math.ceil(planned * 1.1) + 1);
    }

    const [after] = await deliveriesOf(event.id);
    expect(after).toMatchObject({ status: "delivered", attempts: 4 });
    const attempts = await sql(
      `SELECT http_status, response_body FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id`,
      [delivery.id],
    );
    expect(attempts.map((a) => a.http_status)).toEqual([500, 500, 500, 200]);
    expect(attempts[0]!.response_body).toBe("boom");

    // Each retry was stored as due at the time it was then made; once delivered, nothing is due.
    expect(results.slice(0, -1).map((r) => r.nextAttemptAt?.getTime())).toEqual(
      results.slice(1).map((r) => r.now.getTime()),
    );
    expect(results.at(-1)!.nextAttemptAt).toBeNull();
    // The endpoint recovered: it is no longer failing.
    expect(
      (await sqlRow(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.endpointId])).failing_since,
    ).toBeNull();
  });

  it("an attempt already recorded is not made again (a second dispatcher took over a claim)", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext({ status: 502 });
    expect((await deliverWebhook(delivery.id, { attempt: 1, policy: DEV_POLICY })).outcome).toBe("retrying");
    expect(await deliverWebhook(delivery.id, { attempt: 1, policy: DEV_POLICY })).toEqual({
      outcome: "skipped",
      why: "attempt 1 already made",
    });
    expect(requestsFor(event.id)).toHaveLength(1);
  });

  it("Retry-After on 429 and 503 is honoured: the next attempt waits at least that long", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext(
      { status: 503, headers: { "retry-after": "3600" } },
      { status: 429, headers: { "retry-after": "120" } },
    );
    const now = new Date();
    const first = await deliverWebhook(delivery.id, { now, policy: DEV_POLICY });
    expect(first.outcome === "retrying" && first.nextAttemptAt.getTime() - now.getTime()).toBeGreaterThanOrEqual(
      3_600_000,
    );
    const second = await deliverWebhook(delivery.id, {
      now: first.outcome === "retrying" ? first.nextAttemptAt : now,
      policy: DEV_POLICY,
    });
    // 120 s is less than the schedule's 5 min for the third attempt: the schedule wins.
    expect(
      second.outcome === "retrying" &&
        second.nextAttemptAt.getTime() - (first as { nextAttemptAt: Date }).nextAttemptAt.getTime(),
    ).toBeGreaterThanOrEqual(270_000);
  });

  it("gives up after the whole schedule (about two days) of failures", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext(...Array.from({ length: MAX_ATTEMPTS }, () => ({ status: 500 })));
    const start = new Date();
    const results = await walk(delivery.id, start);
    expect(results).toHaveLength(MAX_ATTEMPTS);
    expect(results.at(-1)!.result).toMatchObject({
      outcome: "failed",
      reason: `gave up after ${MAX_ATTEMPTS} attempts`,
      endpointDisabled: false,
    });
    const span = results.at(-1)!.now.getTime() - start.getTime();
    const planned = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(span).toBeGreaterThanOrEqual(planned * 0.9);
    expect(span).toBeLessThanOrEqual(planned * 1.1);
    expect(requestsFor(event.id)).toHaveLength(MAX_ATTEMPTS);
  });

  it("an endpoint failing every attempt for 3 days is disabled, and its holder is told in the bot", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    receiver.defaultAnswer = { status: 500 };
    try {
      const start = new Date();
      const first = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
      const d1 = firstOf(await deliveriesOf(first.id));
      await walk(d1.id, start);
      const second = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
      const d2 = firstOf(await deliveriesOf(second.id));
      const late = new Date(start.getTime() + DISABLE_AFTER_FAILING_MS + 60_000);
      expect(await deliverWebhook(d2.id, { now: late, policy: DEV_POLICY })).toMatchObject({
        outcome: "failed",
        endpointDisabled: true,
      });
    } finally {
      receiver.defaultAnswer = { status: 200, body: "ok" };
    }
    const row = await sqlRow(`SELECT disabled_at, disabled_reason FROM webhook_endpoints WHERE id = $1`, [
      endpoint.endpointId,
    ]);
    expect(row.disabled_at).not.toBeNull();
    expect(row.disabled_reason).toMatch(/^every attempt failed since /);

    // The worker tells the holder once, through the Bot API.
    const told = await botNoticesTo(Number(account.telegramId), 777_000_333);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`Webhook endpoint #${endpoint.endpointId}`);
    expect(told[0]).toContain("was disabled: every attempt failed since");
  }, 90_000);

  it("a test endpoint disabled (410 Gone): its holder is told in the bot, as for a live one", async () => {
    const holder = await createAccount();
    const testAccountId = await openHolderTestAccount(holder.accountId);
    const endpoint = await addEndpoint(testAccountId, receiver.url);
    receiver.answerNext({ status: 410 });
    const event = await recordEvent(testAccountId, "endpoint.test", {}, endpoint.endpointId);
    expect(await deliverWebhook(firstOf(await deliveriesOf(event.id)).id, { policy: DEV_POLICY })).toMatchObject({
      endpointDisabled: true,
    });
    const told = await botNoticesTo(Number(holder.telegramId), 777_000_334);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`Webhook endpoint #${endpoint.endpointId}`);
    expect(told[0]).toContain("was disabled: it answered 410 Gone");
  }, 90_000);

  it("410 Gone disables the endpoint at once; its other deliveries are then given up without a request", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const first = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const second = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    receiver.answerNext({ status: 410 });
    const d1 = firstOf(await deliveriesOf(first.id));
    expect(await deliverWebhook(d1.id, { policy: DEV_POLICY })).toMatchObject({
      outcome: "failed",
      endpointDisabled: true,
      attempt: 1,
    });
    const endpointRow = await sqlRow(`SELECT disabled_at, disabled_reason FROM webhook_endpoints WHERE id = $1`, [
      endpoint.endpointId,
    ]);
    expect(endpointRow.disabled_at).not.toBeNull();
    expect(endpointRow.disabled_reason).toBe("it answered 410 Gone");

    const d2 = firstOf(await deliveriesOf(second.id));
    expect(await deliverWebhook(d2.id, { policy: DEV_POLICY })).toMatchObject({
      outcome: "failed",
      reason: "endpoint disabled",
    });
    expect(requestsFor(second.id)).toHaveLength(0);
    // New events are still recorded (GET /events), but no longer delivered to it.
    const third = await recordEvent(account.accountId, "order.completed", {});
    expect(third.deliveries).toBe(0);
  });

  it("a hanging receiver is cut at the timeout (15 s by default; shortened here) and retried", async () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(15_000);
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext("hang");
    const result = await deliverWebhook(delivery.id, { policy: DEV_POLICY, timeoutMs: 500 });
    expect(result).toMatchObject({ outcome: "retrying", error: "no answer within 0.5 s" });
    expect(requestsFor(event.id)).toHaveLength(1);
    const attempt = await sqlRow(`SELECT http_status, error FROM webhook_attempts WHERE delivery_id = $1`, [
      delivery.id,
    ]);
    expect(attempt).toEqual({ http_status: null, error: "no answer within 0.5 s" });
  });

  it("schedules the retry from the end of a slow failed attempt, not its start", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext("hang");
    const now = new Date();
    // No jitter: the wait before attempt 2 is exactly 5 s.
    const result = await deliverWebhook(delivery.id, { now, policy: DEV_POLICY, timeoutMs: 1000, random: () => 0.5 });
    if (result.outcome !== "retrying") throw new Error(`expected a retry, got ${result.outcome}`);
    const attempt = await sqlRow<{ duration_ms: number }>(
      `SELECT duration_ms FROM webhook_attempts WHERE delivery_id = $1`,
      [delivery.id],
    );
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(1000);
    expect(result.nextAttemptAt.getTime() - now.getTime()).toBe(attempt.duration_ms + RETRY_SCHEDULE_MS[1]!);
  });

  it("pauses an endpoint that keeps failing, longer each time, spread by up to 10% either way, and a delivery ends the pause", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const pause = async () =>
      sqlRow<{ consecutive_failures: number; paused_until: Date | null }>(
        `SELECT consecutive_failures, paused_until FROM webhook_endpoints WHERE id = $1`,
        [endpoint.endpointId],
      );
    const now = new Date();
    const pauses: number[] = [];
    // The spread's middle, then its two ends.
    const draws = [0.5, 0.5, 0, 1];
    for (let i = 0; i < 4; i++) {
      const event = await recordEvent(account.accountId, "endpoint.test", { i }, endpoint.endpointId);
      receiver.answerNext({ status: 500 });
      const deliveryId = firstOf(await deliveriesOf(event.id)).id;
      await deliverWebhook(deliveryId, { now, policy: DEV_POLICY, random: () => draws[i]! });
      const { consecutive_failures, paused_until } = await pause();
      expect(consecutive_failures).toBe(i + 1);
      const { duration_ms } = await sqlRow<{ duration_ms: number }>(
        `SELECT duration_ms FROM webhook_attempts WHERE delivery_id = $1`,
        [deliveryId],
      );
      pauses.push(paused_until!.getTime() - now.getTime() - duration_ms);
    }
    // 1 s, 2 s, 4 s, 8 s from the end of each failed attempt, the last two 10% short and long.
    expect(pauses).toEqual([1000, 2000, 3600, 8800]);
    const event = await recordEvent(account.accountId, "endpoint.test", { ok: true }, endpoint.endpointId);
    receiver.answerNext({ status: 200 });
    await deliverWebhook(firstOf(await deliveriesOf(event.id)).id, { now, policy: DEV_POLICY });
    expect(await pause()).toEqual({ consecutive_failures: 0, paused_until: null });
  });

  it("does not follow redirects, and keeps only the first KiB of an answer", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, receiver.url);
    const event = await recordEvent(account.accountId, "endpoint.test", {}, endpoint.endpointId);
    const delivery = firstOf(await deliveriesOf(event.id));
    receiver.answerNext(
      { status: 302, headers: { location: `${receiver.url}/elsewhere` } },
      { status: 500, body: "x".repeat(50_000) },
    );
    expect(await deliverWebhook(delivery.id, { policy: DEV_POLICY })).toMatchObject({
      outcome: "retrying",
      httpStatus: 302,
    });
    expect(receiver.received.filter((r) => r.path.endsWith("/elsewhere"))).toHaveLength(0);
    expect(await deliverWebhook(delivery.id, { policy: DEV_POLICY })).toMatchObject({
      outcome: "retrying",
      httpStatus: 500,
    });
    const attempts = await sql(
      `SELECT http_status, length(response_body)::int AS n FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id`,
      [delivery.id],
    );
    expect(attempts).toEqual([
      { http_status: 302, n: 0 },
      { http_status: 500, n: MAX_RESPONSE_BYTES },
    ]);
  });
});
