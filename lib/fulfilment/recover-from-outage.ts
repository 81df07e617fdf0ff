// A database outage of any length is ridden out, never a crash. When the liveness connection is
// lost or a job runner stops (it cannot record a job's end), no new job is taken until the liveness
// locks are held again: the running generation is stopped and drains beside its successor (nothing
// it waits for holds the new one back), and a new generation starts once every lock is held.
import type { LivenessLocks } from "./sql/hold-liveness-locks";
import type { Generation, JobGenerations } from "./sql/run-job-generations";
import { retryUntilItWorks } from "./retry-until-it-works";

// Starting graphile's runners again (the database may still be down) backs off up to this.
const RESTART_RETRY_MAX_MS = 5_000;

export interface OutageRecovery {
  /**
   * Replaces the running generation once the liveness locks are held again. Without a reason it is
   * the first start, which goes the same way, so a connection lost meanwhile is handled by the same
   * single sequence and never starts a second set of runners.
   */
  recover(reason?: string): Promise<void> | undefined;
  /** Whether the job runners are waiting for the database. */
  recovering(): boolean;
  /** Once stopping: resolves when a sequence under way has ended. */
  settled(): Promise<void>;
  /** Once settled: drains the running generation and the ones still draining. */
  drainAll(): Promise<void>;
}

export function recoverFromOutage(options: {
  generations: JobGenerations;
  liveness: Pick<LivenessLocks, "hold">;
  log: (line: string) => void;
  stopping: () => boolean;
}): OutageRecovery {
  const { generations, liveness, log, stopping } = options;
  let current: Generation | undefined;
  // Stopped generations still waiting for their jobs to return.
  const draining = new Set<Promise<void>>();
  /** Drains a stopped generation without waiting for it (drainAll waits for every one). */
  const drainBeside = (generation: Generation) => {
    const drained = generations.drain(generation).finally(() => draining.delete(drained));
    draining.add(drained);
  };
  const onStopped = (generation: Generation, reason: string) => current === generation && void recover(reason);

  let recovering: Promise<void> | undefined;
  // A loss reported while a sequence runs: another sequence follows it, so none is missed.
  let lostMeanwhile: string | undefined;
  const replaceGeneration = async (reason?: string) => {
    const old = current;
    current = undefined;
    if (old) drainBeside(old);
    await liveness.hold();
    const next = await retryUntilItWorks("starting the job runners again", () => generations.start(onStopped), {
      maxMs: RESTART_RETRY_MAX_MS,
      log,
      stopping,
    });
    if (!next) return;
    if (stopping()) return void (await generations.drain(next));
    current = next;
    if (reason) log("taking jobs again");
  };
  const recover = (reason?: string): Promise<void> | undefined => {
    if (stopping()) return undefined;
    if (recovering) {
      lostMeanwhile ??= reason;
      return recovering;
    }
    if (reason) log(`${reason}: taking no new jobs until the database is back`);
    recovering = replaceGeneration(reason).finally(() => {
      recovering = undefined;
      const again = lostMeanwhile;
      lostMeanwhile = undefined;
      if (again) void recover(again);
    });
    return recovering;
  };

  return {
    recover,
    recovering: () => recovering !== undefined,
    async settled() {
      await recovering;
    },
    async drainAll() {
      await Promise.all([current && generations.drain(current), ...draining]);
    },
  };
}
