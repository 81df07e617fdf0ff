// The worker waits out an outage of any length: what needs the database is tried again with backoff
// until it works, and the log says so once at the start and then one line in ten, not per attempt.
import { describe, expect, it } from "vitest";
import { retryUntilItWorks } from "@/lib/fulfilment/retry-until-it-works";

/** Work that fails `failures` times, then answers "done". */
function failingFirst(failures: number) {
  let calls = 0;
  return async () => {
    calls++;
    if (calls <= failures) throw new Error(`down (${calls})`);
    return "done";
  };
}

describe("retryUntilItWorks", () => {
  it("answers the work's result once it works, and says how many attempts it took", async () => {
    const lines: string[] = [];
    const result = await retryUntilItWorks("connecting", failingFirst(2), {
      maxMs: 20,
      log: (line) => lines.push(line),
      stopping: () => false,
    });
    expect(result).toBe("done");
    expect(lines).toEqual([
      expect.stringMatching(/^connecting failed \(down \(1\)\); trying again in \d+ ms$/),
      "connecting: done after 3 attempts",
    ]);
  });

  it("logs the first failure and then one in ten, not each one", async () => {
    const lines: string[] = [];
    await retryUntilItWorks("connecting", failingFirst(12), {
      maxMs: 5,
      log: (line) => lines.push(line),
      stopping: () => false,
    });
    expect(lines.map((line) => line.replace(/\d+ ms/, "N ms"))).toEqual([
      "connecting failed (down (1)); trying again in N ms",
      "connecting failed (down (11)); trying again in N ms",
      "connecting: done after 13 attempts",
    ]);
  });

  it("gives up, answering nothing, once the worker is stopping", async () => {
    let stopping = false;
    const work = async () => {
      stopping = true;
      throw new Error("down");
    };
    const result = await retryUntilItWorks("connecting", work, {
      maxMs: 20,
      log: () => undefined,
      stopping: () => stopping,
    });
    expect(result).toBeUndefined();
  });

  it("does not start when the worker is already stopping", async () => {
    let called = false;
    const work = async () => {
      called = true;
      return "done";
    };
    expect(await retryUntilItWorks("connecting", work, { maxMs: 20, log: () => undefined, stopping: () => true })).toBe(
      undefined,
    );
    expect(called).toBe(false);
  });
});
