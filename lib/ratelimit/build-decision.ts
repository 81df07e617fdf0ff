// Turns the rolling log's answer into the API's decision and headers (IETF httpapi ratelimit-headers
// draft, plus the widespread X-RateLimit-* trio). Pure: every time in it is relative to the call.
import type { RollingWindowState } from "./backend";
import type { WindowQuota } from "./config";

export interface NamedWindowState {
  name: string;
  quota: WindowQuota;
  state: RollingWindowState;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** 0 when allowed. When refused: whole seconds after which this key's next call is admitted. */
  retryAfterSeconds: number;
  /** 0 when allowed. When refused: the exact milliseconds until the next call is admitted. */
  retryAfterMs: number;
  /** Attach to every keyed response, refused or not. */
  headers: Record<string, string>;
}

/** Whole seconds for a header, rounded up (waiting that long is never too early), at least 1. */
export function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export function buildDecision(allowed: boolean, windows: NamedWindowState[]): RateLimitDecision {
  // Honest Retry-After: the call is admitted once every full window has a slot again. A full window's
  // resetInMs is exactly when its slot frees (the call just refused is counted too, as every call is).
  const retryAfterMs = allowed
    ? 0
    : Math.max(0, ...windows.filter(({ state }) => state.remaining === 0).map(({ state }) => state.resetInMs));
  const retryAfterSeconds = allowed ? 0 : wholeSeconds(retryAfterMs);

  // X-RateLimit-* describe one window: the binding one, with fewer calls left; on a tie the one whose
  // next slot comes later, since it is the one that keeps a client waiting. Reset is delta seconds
  // (not a Unix time), as in RateLimit's t=, so clients need no synchronised clock.
  const binding = windows.reduce((best, window) =>
    window.state.remaining < best.state.remaining ||
    (window.state.remaining === best.state.remaining && window.state.resetInMs > best.state.resetInMs)
      ? window
      : best,
  );

  const headers: Record<string, string> = {
    "RateLimit-Policy": windows
      .map(({ name, quota }) => `"${name}";q=${quota.tokens};w=${quota.windowSeconds}`)
      .join(", "),
    RateLimit: windows
      .map(({ name, state }) => `"${name}";r=${state.remaining};t=${wholeSeconds(state.resetInMs)}`)
      .join(", "),
    "X-RateLimit-Limit": String(binding.quota.tokens),
    "X-RateLimit-Remaining": String(binding.state.remaining),
    "X-RateLimit-Reset": String(wholeSeconds(binding.state.resetInMs)),
  };
  if (!allowed) headers["Retry-After"] = String(retryAfterSeconds);
  return { allowed, retryAfterSeconds, retryAfterMs, headers };
}
