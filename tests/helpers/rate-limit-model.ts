// The per-key limits written down as plainly as possible, to check the limiter against: a call at
// time t is admitted when, for every window, fewer than `tokens` earlier calls (admitted or refused)
// fall in (t - windowMs, t]. Deliberately naive (a scan of the whole history per call) and sharing
// no code with lib/ratelimit.

export interface ModelWindow {
  name: string;
  tokens: number;
  windowMs: number;
}

export interface ModelAnswer {
  allowed: boolean;
  /** When refused: ms until a next call would be admitted; 0 when allowed. */
  retryAfterMs: number;
  /** The RateLimit header this call should carry. */
  rateLimitHeader: string;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Answers the call at `at`, given every earlier call's time (admitted or refused) in `history`. */
export function modelAnswer(history: readonly number[], at: number, windows: readonly ModelWindow[]): ModelAnswer {
  const inWindow = (calls: readonly number[], windowMs: number) => calls.filter((time) => time > at - windowMs);
  const allowed = windows.every(({ tokens, windowMs }) => inWindow(history, windowMs).length < tokens);

  const withThis = [...history, at];
  let retryAfterMs = 0;
  const parts = windows.map(({ name, tokens, windowMs }) => {
    const counted = inWindow(withThis, windowMs).sort((a, b) => b - a); // most recent first
    const remaining = Math.max(0, tokens - counted.length);
    // `remaining` grows when the min(count, tokens)-th most recent call leaves the window.
    const growsAt = counted[Math.min(counted.length, tokens) - 1]! + windowMs;
    if (!allowed && remaining === 0) retryAfterMs = Math.max(retryAfterMs, growsAt - at);
    return `"${name}";r=${remaining};t=${seconds(growsAt - at)}`;
  });
  return { allowed, retryAfterMs, rateLimitHeader: parts.join(", ") };
}

/** Keeps the calls a client within the limits would make: drops any call the windows would not admit. */
export function withinLimits(times: readonly number[], windows: readonly ModelWindow[]): number[] {
  const kept: number[] = [];
  for (const at of times) {
    if (windows.every(({ tokens, windowMs }) => kept.filter((time) => time > at - windowMs).length < tokens))
      kept.push(at);
  }
  return kept;
}
