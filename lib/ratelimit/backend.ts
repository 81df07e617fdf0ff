// What the rate limiter needs from a store. Three stores implement it: Upstash REST and TCP Redis
// (both through @upstash/ratelimit's Ratelimit class, so every instance shares the counts) and an
// in-process one for a single instance without Redis.

/** One rolling window of a log: at most `tokens` calls in any `windowMs` milliseconds. */
export interface RollingWindow {
  tokens: number;
  windowMs: number;
}

export interface RollingLogSpec {
  /** Checked together; a call is admitted only when every window admits it. */
  windows: RollingWindow[];
  /** Key prefix in the store, e.g. "rl:key"; one sorted set per identifier: `<prefix>:<identifier>`. */
  prefix: string;
  /** Unix ms of a call. The app's clock in production; tests pass a clock they control. */
  clock: () => number;
}

/** One window after the call was recorded. */
export interface RollingWindowState {
  /** Calls this window would still admit right now (0 when full). */
  remaining: number;
  /**
   * Milliseconds until `remaining` next grows: when it is 0, exactly when this window admits a call
   * again (if no other call comes first); otherwise when the oldest counted call leaves the window.
   */
  resetInMs: number;
}

/** A recorded call, enough to take it back out of the log. */
export interface RecordedCall {
  at: number;
  member: string;
}

export interface RollingLogResult {
  /** Every window had room before this call. The call is recorded either way. */
  allowed: boolean;
  /** In the order of the request's windows. */
  windows: RollingWindowState[];
  call: RecordedCall;
}

/**
 * An exact rolling log: check every window and record the call, atomically, in one store round trip.
 * A call at time t is admitted when, for every window, fewer than `tokens` calls of the identifier
 * (admitted or refused) were recorded in (t - windowMs, t].
 */
export interface RollingLog {
  record(identifier: string): Promise<RollingLogResult>;
  /** Takes a recorded call back out (a call that turned out not to belong to the identifier). */
  retract(identifier: string, call: RecordedCall): Promise<void>;
}

/** A fixed window (for failed authentications): every call counts, the budget comes back whole at the reset. */
export interface FixedWindowSpec {
  tokens: number;
  windowMs: number;
  /** Key prefix in the store; keys are `<prefix>:<identifier>:<window number>`. */
  prefix: string;
  clock: () => number;
}

export interface FixedWindowResult {
  /** The call fits in this window (it was counted in any case). */
  success: boolean;
  limit: number;
  /** Calls left in this window after this one. */
  remaining: number;
  /** Unix ms when the window ends and the budget comes back. */
  reset: number;
}

export interface FixedWindow {
  limit(identifier: string): Promise<FixedWindowResult>;
}

export interface RateLimitBackend {
  readonly kind: "upstash" | "redis" | "memory";
  createRollingLog(spec: RollingLogSpec): RollingLog;
  createFixedWindow(spec: FixedWindowSpec): FixedWindow;
  /** Told when a check got no answer in time, so a connection that stopped answering can be replaced. */
  noteTimeout?(timeoutMs: number): void;
  close(): Promise<void>;
}
