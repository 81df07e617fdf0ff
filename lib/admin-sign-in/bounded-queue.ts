// Runs at most `concurrency` tasks at once with at most `maxWaiting` queued behind them; a task
// that finds the wait list full is refused at once (QueueFullError) instead of waiting. Used for
// scrypt: each check holds a libuv thread-pool thread and 32 MiB for tens of milliseconds, so an
// unbounded pile of them would take the pool (4 threads) and the memory the API also needs.

export class QueueFullError extends Error {
  constructor() {
    super("queue full");
    this.name = "QueueFullError";
  }
}

export interface BoundedQueue {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Running and waiting now (for tests and logs). */
  load(): { running: number; waiting: number };
}

export function createBoundedQueue(options: { concurrency: number; maxWaiting: number }): BoundedQueue {
  let running = 0;
  const waiting: (() => void)[] = [];

  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) {
      running++;
      next();
    }
  };

  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (running >= options.concurrency) {
        if (waiting.length >= options.maxWaiting) throw new QueueFullError();
        // The slot is handed over by release(), so `running` never exceeds the limit.
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running++;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
