// Keeps one child process running for `npm start`: a child that exits when nobody asked it to is
// started again after a backoff (0.5 s, doubling, at most 10 s), and each restart is logged. A child
// that keeps crashing (maxCrashes within windowMs) is not restarted again: onGiveUp says so and the
// caller decides (npm start stops everything with that message).
//
// A child that exits with DEPENDENCY_DOWN_EXIT_CODE says a dependency (the database) is down, not
// that it is broken: it is restarted with the same backoff but never counts toward giving up, so an
// outage of any length never stops the service. (The worker waits out outages without exiting.)
import type { ChildProcess } from "node:child_process";

/** EX_TEMPFAIL: "try again later". Exiting with it is not a crash. */
export const DEPENDENCY_DOWN_EXIT_CODE = 75;

export interface SupervisorOptions {
  name: string;
  /** Starts the process; called for the first start and for every restart. */
  start: () => ChildProcess;
  log: (line: string) => void;
  onGiveUp: (reason: string) => void;
  /** Called after every (re)start with the new child. */
  onStart?: (child: ChildProcess) => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  maxCrashes?: number;
  windowMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL. */
  stopTimeoutMs?: number;
}

export interface Supervisor {
  readonly name: string;
  current(): ChildProcess | undefined;
  /** How many times the child has been restarted after a crash. */
  restarts(): number;
  /** Stops the child (SIGTERM, then SIGKILL after the timeout) and never restarts it. */
  stop(): Promise<void>;
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `killed by ${signal}` : `exit code ${code}`;
}

export function superviseProcess(options: SupervisorOptions): Supervisor {
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const maxCrashes = options.maxCrashes ?? 5;
  const windowMs = options.windowMs ?? 60_000;
  const crashes: number[] = [];
  let child: ChildProcess | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  let restartCount = 0;
  // Dependency-down exits in a row: their backoff grows on its own count.
  let dependencyExits = 0;

  const launch = () => {
    restartTimer = undefined;
    if (stopping) return;
    const started = options.start();
    child = started;
    started.once("exit", (code, signal) => {
      if (child === started) child = undefined;
      if (stopping) return;
      const now = Date.now();
      const dependencyDown = code === DEPENDENCY_DOWN_EXIT_CODE;
      if (dependencyDown) {
        dependencyExits++;
      } else {
        dependencyExits = 0;
        crashes.push(now);
      }
      while ((crashes[0] ?? now) < now - windowMs) crashes.shift();
      if (crashes.length >= maxCrashes) {
        options.onGiveUp(
          `${options.name} crashed ${crashes.length} times within ${Math.round(windowMs / 1000)} s (last: ${describeExit(code, signal)}); not restarting it`,
        );
        return;
      }
      const delay = Math.min(
        maxBackoffMs,
        initialBackoffMs * 2 ** Math.max(0, dependencyDown ? dependencyExits - 1 : crashes.length - 1),
      );
      options.log(
        dependencyDown
          ? `${options.name} cannot reach a dependency (exit code ${code}); restarting it in ${(delay / 1000).toFixed(1)} s`
          : `${options.name} stopped unexpectedly (${describeExit(code, signal)}); restarting it in ${(delay / 1000).toFixed(1)} s`,
      );
      restartCount++;
      restartTimer = setTimeout(launch, delay);
    });
    options.onStart?.(started);
  };
  launch();

  return {
    name: options.name,
    current: () => child,
    restarts: () => restartCount,
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const killTimer = setTimeout(() => running.kill("SIGKILL"), options.stopTimeoutMs ?? 10_000);
        running.once("exit", () => {
          clearTimeout(killTimer);
          resolve();
        });
        running.kill("SIGTERM");
      });
    },
  };
}
