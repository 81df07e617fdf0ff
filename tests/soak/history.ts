// What happened in a soak, in order: every request and its answer, every fault, and every violation
// of an invariant with the history around it and how to replay the run.

export interface HistoryEntry {
  /** Milliseconds since the workload started. */
  t: number;
  what: string;
}

export interface Violation {
  invariant: string;
  t: number;
  detail: string;
}

export class SoakHistory {
  readonly entries: HistoryEntry[] = [];
  readonly violations: Violation[] = [];
  /** Checks made per invariant, for the report. */
  readonly checks = new Map<string, number>();
  private started = Date.now();

  /** The workload starts now: times are counted from here. */
  startClock(): void {
    this.started = Date.now();
  }

  now(): number {
    return Date.now() - this.started;
  }

  note(what: string): void {
    this.entries.push({ t: this.now(), what });
  }

  /** Counts one check of `invariant`; records a violation when `problem` says what went wrong. */
  check(invariant: string, problem: string | undefined): void {
    this.checks.set(invariant, (this.checks.get(invariant) ?? 0) + 1);
    if (problem !== undefined) {
      this.violations.push({ invariant, t: this.now(), detail: problem });
      this.note(`VIOLATION ${invariant}: ${problem}`);
      // At once, not only in the report: a long run shows what broke while it goes on.
      console.log(`[soak] ${(this.now() / 1000).toFixed(1)} s: VIOLATION of "${invariant}": ${problem.slice(0, 500)}`);
    }
  }

  /** The entries within `ms` of `t`, or those mentioning `needle`. */
  around(t: number, needle?: string, ms = 3000): string[] {
    return this.entries
      .filter((entry) => Math.abs(entry.t - t) <= ms || (needle !== undefined && entry.what.includes(needle)))
      .slice(-60)
      .map((entry) => `  ${(entry.t / 1000).toFixed(3).padStart(9)}s ${entry.what}`);
  }
}
