// Whatever the worker needs the database for is tried again until it works: an outage of any length
// is waited out, never a crash, and stopping the worker ends the waiting.
import { setTimeout as sleep } from "node:timers/promises";

/** Exponential backoff with jitter: 250 ms, 500 ms, ... up to `maxMs`. */
const backoff = (attempt: number, maxMs: number) =>
  Math.round(Math.min(maxMs, 250 * 2 ** Math.min(attempt, 10)) * (0.5 + Math.random() / 2));

/**
 * Runs `work` until it succeeds, waiting with backoff in between: the database may be down.
 * Undefined once `stopping()` says the worker is stopping (checked before each attempt).
 */
export async function retryUntilItWorks<T>(
  what: string,
  work: () => Promise<T>,
  options: { maxMs: number; log: (line: string) => void; stopping: () => boolean },
): Promise<T | undefined> {
  for (let attempt = 0; ; attempt++) {
    if (options.stopping()) return undefined;
    try {
      const result = await work();
      if (attempt > 0) options.log(`${what}: done after ${attempt + 1} attempts`);
      return result;
    } catch (error) {
      const delay = backoff(attempt, options.maxMs);
      // The first failure and then one line in ten: an outage of minutes must not flood the log.
      if (attempt % 10 === 0) options.log(`${what} failed (${(error as Error).message}); trying again in ${delay} ms`);
      await sleep(delay);
    }
  }
}
