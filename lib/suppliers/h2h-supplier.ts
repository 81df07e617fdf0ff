// A generic host-to-host (H2H) JSON supplier over HTTP.
//
// Configuration (lib/config/env.ts; the first three are required when a game line or SUPPLIER
// names "h2h"):
//   H2H_BASE_URL    the supplier's base URL, http(s); a path prefix is allowed
//                   (https://supplier.example/api -> https://supplier.example/api/v1/topups)
//   H2H_PARTNER_ID  our partner id at the supplier, sent as X-Partner-Id
//   H2H_SECRET      the shared HMAC-SHA256 key that signs every request (never sent, never logged)
//   H2H_TIMEOUT_MS  deadline for one whole request, answer body included (default 5000)
//
// Protocol. Every request carries the headers
//   X-Partner-Id  H2H_PARTNER_ID
//   X-Timestamp   unix seconds
//   X-Signature   hex HMAC-SHA256(H2H_SECRET, `${timestamp}.${method}.${path}.${body}`)
//                 method upper-case; path as sent (prefix included, percent-encoded, no query);
//                 body the exact JSON text sent, "" for a GET
// and the supplier answers JSON. A request that fails the signature check is answered 401.
//
//   POST /v1/topups          { reference, sku, game, userId?, zoneId?, serverId? }
//     200 { status: "success" | "pending" | "failed", reference?, supplierRef?, message?, failure? }
//     failure ("customer" | "supplier") says whose side refused a failed top-up; without it a
//     message naming the player, zone or server is the customer's, anything else the supplier's.
//     The supplier deduplicates by reference: a resubmission answers the existing order's state
//     and never delivers twice. So placing again after "unknown" is safe.
//   GET  /v1/topups/{reference}   (reference percent-encoded)
//     200 same shape as above; 404 the supplier never received this reference
//   POST /v1/players/verify  { game, playerId, zoneId? }
//     200 { found: true, nickname } | { found: false }
//   POST /v1/redeem          { reference, playerId, code }
//     200 { status: "redeemed" | "invalid_code" | "code_used" | "player_not_found", nickname? }
//
// Faults become outcomes, never exceptions and never guesses:
//   timeout, refused or reset connection, 5xx, 429, a redirect, a body that is not JSON or does
//   not fit the shape above, an answer naming another reference
//     -> placeTopup and checkTopup: unknown; verifyPlayer and redeemCode: unavailable
//   placeTopup answered 4xx (not 404, not 429): failed only when the body says
//     { status: "failed" }, otherwise unknown (a 400 may be our bug, not a refusal of the order)
//   checkTopup answered 404 -> not_found (safe to place again: the supplier deduplicates)
import { exchangeWithH2h, type H2hConnection, type H2hExchange } from "./h2h-exchange";
import { H2H_PATHS, h2hRedeemAnswer, h2hTopupAnswer, h2hVerifyAnswer, type H2hTopupAnswer } from "./h2h-protocol";
import { env, type Env } from "../config/env";
import { SupplierConfigError } from "./supplier-config";
import type { RedeemOutcome, Supplier, TopupOutcome, VerifyOutcome } from "./types";

export type H2hConfig = H2hConnection;

/** The configured H2H_* values; throws once, naming every required one that is missing. */
export function h2hConfigFromEnv(settings: Env["h2h"] = env().h2h): H2hConfig {
  const { baseUrl, partnerId, secret, timeoutMs } = settings;
  if (!baseUrl || !partnerId || !secret) {
    const missing = [
      ["H2H_BASE_URL", baseUrl],
      ["H2H_PARTNER_ID", partnerId],
      ["H2H_SECRET", secret],
    ].flatMap(([name, value]) => (value ? [] : [name]));
    throw new SupplierConfigError(
      `The "h2h" supplier needs ${missing.join(", ")} in the environment (missing or empty).`,
    );
  }
  return { baseUrl, partnerId, secret, timeoutMs };
}

/** `name`: the supplier account's name, when several h2h accounts are configured. */
export function createH2hSupplier(config: H2hConfig, name = "h2h"): Supplier {
  assertUsableConfig(config);
  const connection: H2hConnection = { ...config };

  return {
    name,

    async placeTopup(request) {
      const payload = {
        reference: request.reference,
        sku: request.sku,
        game: request.game,
        userId: request.userId,
        zoneId: request.zoneId,
        serverId: request.serverId,
      };
      const answer = await exchangeWithH2h(connection, "POST", H2H_PATHS.placeTopup, payload);
      return topupOutcomeOf(answer, request.reference);
    },

    async checkTopup(reference) {
      const answer = await exchangeWithH2h(connection, "GET", H2H_PATHS.checkTopup(reference));
      // Only the supplier's own JSON answer says it never received the order (and lets the order
      // move on); a 404 page from a proxy or a maintenance front is no such answer.
      if (
        answer.kind === "answered" &&
        answer.httpStatus === 404 &&
        typeof answer.body === "object" &&
        answer.body !== null
      ) {
        return { status: "not_found" };
      }
      if (answer.kind === "answered" && !isSuccess(answer.httpStatus)) {
        return { status: "unknown", reason: `supplier answered HTTP ${answer.httpStatus}` };
      }
      return topupOutcomeOf(answer, reference);
    },

    async verifyPlayer(request) {
      const answer = await exchangeWithH2h(connection, "POST", H2H_PATHS.verifyPlayer, {
        game: request.game,
        playerId: request.playerId,
        zoneId: request.zoneId,
      });
      return verifyOutcomeOf(answer);
    },

    async redeemCode(request) {
      const answer = await exchangeWithH2h(connection, "POST", H2H_PATHS.redeemCode, {
        reference: request.reference,
        playerId: request.playerId,
        code: request.code,
      });
      return redeemOutcomeOf(answer);
    },
  };
}

function assertUsableConfig(config: H2hConfig): void {
  let url: URL | undefined;
  try {
    url = new URL(config.baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw new SupplierConfigError("H2H_BASE_URL must be an http(s) URL without a query or fragment.");
  }
  if (!config.partnerId) throw new SupplierConfigError("H2H_PARTNER_ID must not be empty.");
  if (!config.secret) throw new SupplierConfigError("H2H_SECRET must not be empty.");
  if (!Number.isInteger(config.timeoutMs) || config.timeoutMs < 1) {
    throw new SupplierConfigError("H2H_TIMEOUT_MS must be a whole number of milliseconds >= 1.");
  }
}

function isSuccess(httpStatus: number): boolean {
  return httpStatus >= 200 && httpStatus < 300;
}

function topupOutcomeOf(answer: H2hExchange, reference: string): TopupOutcome {
  if (answer.kind === "no_answer") return { status: "unknown", reason: answer.reason };
  const { httpStatus } = answer;
  const parsed = h2hTopupAnswer.safeParse(answer.body);
  const readable = parsed.success && (parsed.data.reference === undefined || parsed.data.reference === reference);

  if (isSuccess(httpStatus)) {
    if (!parsed.success) return { status: "unknown", reason: `unreadable answer (HTTP ${httpStatus})` };
    if (!readable) return { status: "unknown", reason: "the answer names another reference" };
    const { status, supplierRef, message } = parsed.data;
    if (status === "failed") return withSupplierRef(failedOutcome(parsed.data), supplierRef);
    if (status === "pending") return withSupplierRef({ status }, supplierRef);
    return withSupplierRef(message ? { status, message } : { status }, supplierRef);
  }
  // A refusal we can act on needs the supplier to say "failed" in so many words; any other 4xx
  // might be our own mistake, and guessing "failed" would refund an order that was delivered.
  const isClientError = httpStatus >= 400 && httpStatus < 500 && httpStatus !== 404 && httpStatus !== 429;
  if (isClientError && readable && parsed.data.status === "failed") {
    return withSupplierRef(failedOutcome(parsed.data), parsed.data.supplierRef);
  }
  return { status: "unknown", reason: `supplier answered HTTP ${httpStatus}` };
}

const CUSTOMER_SIDE_MESSAGE = /PLAYER|USER|ZONE|SERVER/i;

function failedOutcome(answer: H2hTopupAnswer): TopupOutcome {
  const reason = answer.message || "SUPPLIER REJECTED";
  const failure = answer.failure ?? (CUSTOMER_SIDE_MESSAGE.test(reason) ? "customer" : "supplier");
  return { status: "failed", reason, failure };
}

function withSupplierRef<Outcome extends TopupOutcome>(outcome: Outcome, supplierRef: string | undefined): Outcome {
  return supplierRef === undefined ? outcome : { ...outcome, supplierRef };
}

function verifyOutcomeOf(answer: H2hExchange): VerifyOutcome {
  if (answer.kind === "no_answer") return { status: "unavailable", reason: answer.reason };
  if (!isSuccess(answer.httpStatus))
    return { status: "unavailable", reason: `supplier answered HTTP ${answer.httpStatus}` };
  const parsed = h2hVerifyAnswer.safeParse(answer.body);
  if (!parsed.success) return { status: "unavailable", reason: "unreadable answer" };
  return parsed.data.found ? { status: "found", nickname: parsed.data.nickname } : { status: "not_found" };
}

function redeemOutcomeOf(answer: H2hExchange): RedeemOutcome {
  if (answer.kind === "no_answer") return { status: "unavailable", reason: answer.reason };
  if (!isSuccess(answer.httpStatus))
    return { status: "unavailable", reason: `supplier answered HTTP ${answer.httpStatus}` };
  const parsed = h2hRedeemAnswer.safeParse(answer.body);
  if (!parsed.success) return { status: "unavailable", reason: "unreadable answer" };
  const { status, nickname } = parsed.data;
  if (status === "redeemed") return nickname ? { status, nickname } : { status };
  return { status };
}
