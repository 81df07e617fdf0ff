// "The rate limit cannot be checked right now." The API answers 503 RATE_LIMIT_UNAVAILABLE: an
// unknown count must never let a request through, and a slow store must never hang one.

export class RateLimitUnavailableError extends Error {
  readonly code = "RATE_LIMIT_UNAVAILABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RateLimitUnavailableError";
  }
}

/** Rejection of withDeadline when the work did not settle in time. */
export class DeadlineExceededError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "DeadlineExceededError";
  }
}

/** Settles like `work`, or rejects with DeadlineExceededError after `ms`; the timer never outlives it. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
