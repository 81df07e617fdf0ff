// What the rate limiter needs from a store: counting windows. Three stores implement it: Upstash
// REST and TCP Redis (both through @upstash/ratelimit, so every instance shares the counts) and an
// in-process one for a single instance without Redis.

/** One window's answer, in @upstash/ratelimit's terms. */
export interface WindowResult {
  /** The call fits in this window (and was counted in it). */
  success: boolean;
  limit: number;
  /** Calls left in this window after this one. */
  remaining: number;
  /** Unix time in ms when the current fixed window ends (the sliding window's weights shift then). */
  reset: number;
}

export interface WindowSpec {
  /**
   * "sliding": @upstash/ratelimit's slidingWindow (a refused call is not counted).
   * "fixed": its fixedWindow (every call is counted, refused or not).
   */
  algorithm: "sliding" | "fixed";
  tokens: number;
  windowMs: number;
  /** Key prefix in the store, e.g. "rl:burst"; keys are `<prefix>:<identifier>:<window number>`. */
  prefix: string;
}

export interface WindowCounter {
  limit(identifier: string): Promise<WindowResult>;
}

export interface RateLimitBackend {
  readonly kind: "upstash" | "redis" | "memory";
  createWindow(spec: WindowSpec): WindowCounter;
  /** Told when a check got no answer in time, so a connection that stopped answering can be replaced. */
  noteTimeout?(timeoutMs: number): void;
  close(): Promise<void>;
}
