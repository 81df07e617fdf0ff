// Each planned operation carried out as a reseller (over the API) or an admin (through the bot)
// would, with what the answer must be checked against there and then. What can only be judged once
// the run is over (settlement, deliveries, webhooks) is left to invariants.ts.
import { Webhook } from "standardwebhooks";
import type { FakeTelegram } from "../helpers/fake-telegram";
import { buttonsOf, plain } from "../helpers/fake-telegram";
import type { SoakClient } from "./client";
import type { SoakHistory } from "./history";
import { LIVE_PLAYERS, type Mode, type Operation, type PlannedOperation } from "./plan";
import type { SoakWorld } from "./world";

interface Placement {
  account: number;
  mode: Mode;
  trxid: string;
  body: Record<string, unknown>;
  /** The invoice of the first 200, once answered. */
  invoice?: { orderId: string; status: string };
  /** Settles once the placement has its final answer (or gave up). */
  done: Promise<void>;
}

export interface SoakState {
  placements: Map<number, Placement>;
  /** Each account and mode's last /events sequence seen. */
  lastSequence: Map<string, number>;
  /** Codes answered redeemed, by code: the trxids that redeemed it. */
  redeemed: Map<string, Set<string>>;
  /** Bot adjustments the bot confirmed as done, per account id. */
  adjustmentsDone: Map<number, number>;
  botQueue: Promise<void>;
}

export function newSoakState(): SoakState {
  return {
    placements: new Map(),
    lastSequence: new Map(),
    redeemed: new Map(),
    adjustmentsDone: new Map(),
    botQueue: Promise.resolve(),
  };
}

interface Context {
  client: SoakClient;
  history: SoakHistory;
  world: SoakWorld;
  state: SoakState;
  telegram: FakeTelegram;
}

/** The order number in a public id (docs/api.md): its third part read in base 36. */
const orderNumberOf = (orderId: string) => String(parseInt(orderId.split("-")[2]!, 36));

async function place(ctx: Context, index: number, op: Extract<Operation, { kind: "place" }>): Promise<void> {
  const account = ctx.world.accounts[op.account]!;
  const body: Record<string, unknown> = { pid: op.pid, trxid: op.trxid };
  if (op.userId) body.userId = op.userId;
  if (op.metadata) body.metadata = op.metadata;
  let finish!: () => void;
  const placement: Placement = {
    account: op.account,
    mode: op.mode,
    trxid: op.trxid,
    body,
    done: new Promise((resolve) => (finish = resolve)),
  };
  ctx.state.placements.set(index, placement);
  try {
    const answer = await ctx.client.untilFinal(account.keys[op.mode], "POST", "/orders", body, 10 * 60_000);
    if (answer?.status === 200) placement.invoice = { orderId: answer.json.orderId, status: answer.json.status };
    else if (answer)
      ctx.history.check(
        "a placement is answered an invoice or a documented refusal",
        answer.json?.code === "INSUFFICIENT_STOCK"
          ? undefined
          : `${op.trxid}: ${answer.status} ${answer.text.slice(0, 200)}`,
      );
  } finally {
    finish();
  }
}

/** The original placement once it has an invoice; undefined when it has none (nothing to repeat). */
async function placedOriginal(ctx: Context, of: number): Promise<Placement | undefined> {
  const original = ctx.state.placements.get(of);
  if (!original) return undefined;
  await original.done;
  return original.invoice ? original : undefined;
}

async function duplicate(ctx: Context, of: number, changed: boolean): Promise<void> {
  const original = await placedOriginal(ctx, of);
  if (!original) return;
  const key = ctx.world.accounts[original.account]!.keys[original.mode];
  const body = changed
    ? { ...original.body, ...(original.body.userId ? { userId: `${original.body.userId}1` } : { quantity: 2 }) }
    : original.body;
  const answer = await ctx.client.untilFinal(key, "POST", "/orders", body);
  if (!answer) return;
  if (changed)
    ctx.history.check(
      "a changed duplicate is refused",
      answer.status === 409 && answer.json?.code === "IDEMPOTENCY_MISMATCH"
        ? undefined
        : `${original.trxid}: ${answer.status} ${answer.text.slice(0, 200)}`,
    );
  else
    ctx.history.check(
      "an exact duplicate answers the same order",
      answer.status === 200 &&
        answer.json?.orderId === original.invoice!.orderId &&
        answer.headers.get("idempotent-replayed") === "true"
        ? undefined
        : `${original.trxid}: ${answer.status} ${answer.text.slice(0, 200)}`,
    );
}

async function lookup(ctx: Context, of: number, by: "publicId" | "trxid" | "id"): Promise<void> {
  const original = await placedOriginal(ctx, of);
  if (!original) return;
  const { orderId } = original.invoice!;
  const reference = by === "publicId" ? orderId : by === "trxid" ? original.trxid : orderNumberOf(orderId);
  const key = ctx.world.accounts[original.account]!.keys[original.mode];
  const answer = await ctx.client.untilFinal(key, "GET", `/orders/${encodeURIComponent(reference)}?by=${by}`);
  if (!answer) return;
  ctx.history.check(
    "every reference finds its order",
    answer.status === 200 && answer.json?.orderId === orderId
      ? undefined
      : `${by} ${reference}: ${answer.status} ${answer.text.slice(0, 200)}`,
  );
}

async function cancel(ctx: Context, of: number): Promise<void> {
  const original = await placedOriginal(ctx, of);
  if (!original) return;
  const key = ctx.world.accounts[original.account]!.keys[original.mode];
  const answer = await ctx.client.untilFinal(
    key,
    "POST",
    `/orders/${encodeURIComponent(original.invoice!.orderId)}/cancel`,
  );
  if (!answer) return;
  const fine =
    (answer.status === 200 && answer.json?.status === "cancelled") ||
    (answer.status === 409 && ["ORDER_WITH_SUPPLIER", "ORDER_FINISHED"].includes(answer.json?.code));
  ctx.history.check(
    "a cancel is taken or refused as documented",
    fine ? undefined : `${original.trxid}: ${answer.status} ${answer.text.slice(0, 200)}`,
  );
}

async function readEvents(ctx: Context, accountIndex: number, mode: Mode): Promise<void> {
  const account = ctx.world.accounts[accountIndex]!;
  const name = `${accountIndex}-${mode}`;
  const after = ctx.state.lastSequence.get(name) ?? 0;
  const answer = await ctx.client.untilFinal(
    account.keys[mode],
    "GET",
    `/events?after=${after}&limit=200`,
    undefined,
    30_000,
  );
  if (answer?.status !== 200) return;
  const sequences: number[] = answer.json.events.map((event: { sequence: number }) => event.sequence);
  const gap = sequences.findIndex((sequence, i) => sequence !== after + i + 1);
  ctx.history.check(
    "/events has no gap in an account's sequence",
    gap === -1 ? undefined : `${name}: after ${after} came ${sequences.join(",")}`,
  );
  if (sequences.length) ctx.state.lastSequence.set(name, sequences.at(-1)!);
}

async function redeem(ctx: Context, op: Extract<Operation, { kind: "redeem" }>): Promise<void> {
  const key = ctx.world.accounts[op.account]!.keys.live;
  const answer = await ctx.client.untilFinal(key, "POST", "/rdmbr", {
    playerId: LIVE_PLAYERS[0],
    code: op.code,
    trxid: op.trxid,
  });
  if (answer?.status === 200 && answer.json?.redeemed) {
    const trxids = ctx.state.redeemed.get(op.code) ?? new Set<string>();
    trxids.add(op.trxid);
    ctx.state.redeemed.set(op.code, trxids);
    ctx.history.check(
      "each code redeemed at most once",
      trxids.size > 1 ? `${op.code} redeemed by ${[...trxids].join(", ")}` : undefined,
    );
  }
}

/** Delivers one update, again while the webhook refuses it (Telegram redelivers the same update). */
async function deliverUntilTaken(ctx: Context, update: Parameters<FakeTelegram["deliver"]>[0]): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await ctx.telegram.deliver(update);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function botAdjust(ctx: Context, op: Extract<Operation, { kind: "bot-adjust" }>): Promise<void> {
  const account = ctx.world.accounts[op.account]!;
  const usd = (op.cents / 100).toFixed(2);
  const text = op.direction === "credit" ? `/credit ${account.id} ${usd} soak` : `/debit ${account.id} ${usd} soak`;
  const mark = ctx.telegram.calls.length;
  await deliverUntilTaken(ctx, ctx.telegram.message(ctx.world.admin, text));
  const summary = ctx.telegram.calls.slice(mark).find((call) => buttonsOf(call).length === 2);
  if (!summary) {
    ctx.history.note(
      `bot ${text}: no confirmation asked (${ctx.telegram.calls
        .slice(mark)
        .map((c) => plain(c.payload.text ?? ""))
        .join(" | ")})`,
    );
    return;
  }
  const confirm = buttonsOf(summary)[0]![1];
  const pressed = ctx.telegram.calls.length;
  await deliverUntilTaken(ctx, ctx.telegram.callback(ctx.world.admin, confirm, summary.response.message_id));
  const edited = ctx.telegram.calls.slice(pressed).find((call) => call.method === "editMessageText");
  const outcome = plain(edited?.payload.text ?? "");
  ctx.history.note(`bot ${text}: ${outcome.slice(0, 120)}`);
  if (/credited|debited/i.test(outcome))
    ctx.state.adjustmentsDone.set(account.id, (ctx.state.adjustmentsDone.get(account.id) ?? 0) + 1);
}

async function burst(ctx: Context, op: Extract<Operation, { kind: "burst" }>): Promise<void> {
  // A key of its own: a burst fills its windows, which would hold up the account's other calls.
  const key = ctx.world.accounts[op.account]!.keys.burst;
  const sentAt = Date.now();
  const answers = await Promise.all(
    Array.from({ length: op.calls }, () => ctx.client.send(key, "GET", "/balance", undefined, true)),
  );
  const span = Date.now() - sentAt;
  const admitted = answers.filter((answer) => answer?.status === 200).length;
  // The rolling second admits 10 calls of a key, counted across every web process (docs/api.md).
  const bound = 10 * (1 + Math.floor(span / 1000));
  ctx.history.check(
    "rate limits hold across the web processes",
    admitted > bound
      ? `${op.calls} calls in ${span} ms on account ${op.account}: ${admitted} admitted (at most ${bound})`
      : undefined,
  );
}

export async function runOperation(ctx: Context, planned: PlannedOperation): Promise<void> {
  const op = planned.operation;
  const account = "account" in op ? ctx.world.accounts[op.account]! : undefined;
  switch (op.kind) {
    case "place":
      return place(ctx, planned.index, op);
    case "duplicate":
    case "changed-duplicate":
      return duplicate(ctx, op.of, op.kind === "changed-duplicate");
    case "lookup":
      return lookup(ctx, op.of, op.by);
    case "cancel":
      return cancel(ctx, op.of);
    case "history":
      await ctx.client.untilFinal(account!.keys[op.mode], "GET", "/history?limit=20", undefined, 30_000);
      return;
    case "balance":
      await ctx.client.untilFinal(account!.keys[op.mode], "GET", "/balance", undefined, 30_000);
      return;
    case "events":
      return readEvents(ctx, op.account, op.mode);
    case "verify":
      await ctx.client.untilFinal(account!.keys.live, "POST", "/brvvfy", { playerId: op.userId }, 30_000);
      return;
    case "redeem":
      return redeem(ctx, op);
    case "bot-adjust": {
      // One admin, one conversation: the bot's adjustments go one after another.
      const turn = ctx.state.botQueue.then(() => botAdjust(ctx, op));
      ctx.state.botQueue = turn.catch((error: Error) => ctx.history.note(`bot: ${error.message}`));
      return turn;
    }
    case "burst":
      return burst(ctx, op);
  }
}

/** Whether a received webhook is signed with the endpoint's secret (Standard Webhooks). */
export function signatureValid(secret: string, body: string, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}
