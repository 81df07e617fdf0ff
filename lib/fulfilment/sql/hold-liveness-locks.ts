// graphile-worker leaves a killed worker's jobs locked for 4 hours, so each id this process locks
// jobs or webhook claims under is also held as a session advisory lock, on a connection of its own.
// PostgreSQL lets the locks go when the process dies, and a sweep (sweep-dead-workers.ts) then
// releases what the id left locked. A lost connection is taken again with backoff, however long the
// database is away, and `onLost` is told so that no new job is taken meanwhile.
import pg from "pg";
import { sql } from "../../db/run-sql";
import { retryUntilItWorks } from "../retry-until-it-works";

export const LIVENESS_NAMESPACE = 72_707_002;
// After a database restart every worker takes its locks again within this of the database's return
// (sweep-dead-workers.ts waits longer than this before it calls an id dead).
const LIVENESS_RETRY_MAX_MS = 2_000;

interface LivenessOptions {
  connectionString: string;
  log: (line: string) => void;
  stopping: () => boolean;
  /** The connection was lost: its locks with it, until `hold()` has taken them again. */
  onLost: (reason: string) => void;
}

export class LivenessLocks {
  // The ids this process answers for: a runner's stay here until its last job has returned.
  private readonly workerIds = new Set<string>();
  private liveness: pg.Client | undefined;
  // The ids locked on `liveness` (a lock taken twice would need two unlocks).
  private lockedIds = new Set<string>();
  // One query at a time on the liveness connection: graphile creates its workers all at once, and
  // pg refuses (deprecates) a query sent while the client is still busy with another.
  private livenessQueue: Promise<unknown> = Promise.resolve();
  private livenessTaking: Promise<unknown> | undefined;

  constructor(private readonly options: LivenessOptions) {}

  /** Holds `id` alive: locked now if the connection is up, else as soon as it is taken again. */
  holdId(id: string): Promise<unknown> {
    this.workerIds.add(id);
    return this.onLiveness(async () => {
      if (this.liveness) await this.lockAll(this.liveness);
    });
  }

  /** Lets the ids go: a sweep may release what is still locked under them. */
  letGo(ids: string[]): Promise<unknown> {
    for (const id of ids) this.workerIds.delete(id);
    return this.onLiveness(async () => {
      for (const id of ids) {
        if (!this.liveness || !this.lockedIds.delete(id)) continue;
        await this.liveness.query(sql`SELECT pg_advisory_unlock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
      }
    });
  }

  /** Resolves once every id is locked on a live connection, however long the database is away. */
  hold(): Promise<unknown> {
    if (this.liveness) return Promise.resolve();
    return (this.livenessTaking ??= retryUntilItWorks("taking the liveness locks", () => this.takeLocks(), {
      maxMs: LIVENESS_RETRY_MAX_MS,
      log: this.options.log,
      stopping: this.options.stopping,
    }).finally(() => (this.livenessTaking = undefined)));
  }

  async end(): Promise<void> {
    await this.liveness?.end().catch(() => undefined);
  }

  private onLiveness(work: () => Promise<unknown>): Promise<unknown> {
    this.livenessQueue = this.livenessQueue.then(work).catch(() => undefined);
    return this.livenessQueue;
  }

  private async lockAll(client: pg.Client): Promise<void> {
    for (const id of this.workerIds) {
      if (this.lockedIds.has(id)) continue;
      await client.query(sql`SELECT pg_advisory_lock(${LIVENESS_NAMESPACE}, hashtext(${id}))`);
      this.lockedIds.add(id);
    }
  }

  /** One attempt at a connection with every id locked on it. */
  private async takeLocks(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString, connectionTimeoutMillis: 5000 });
    client.on("error", (error) => {
      if (this.options.stopping() || this.liveness !== client) return;
      this.liveness = undefined;
      this.lockedIds = new Set();
      void client.end().catch(() => undefined);
      this.options.onLost(`liveness connection lost: ${error.message}`);
    });
    try {
      await client.connect();
      await this.onLiveness(async () => {
        this.lockedIds = new Set();
        await this.lockAll(client);
        this.liveness = client;
      });
      // onLiveness swallows errors: a lock that was not taken shows here.
      if (this.liveness !== client) throw new Error("the locks were not taken");
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }
}
