// Lets @upstash/ratelimit run on any Redis over TCP. It calls only evalsha(sha, keys, args) and, on
// NOSCRIPT, eval(script, keys, args); the rolling log also zrem(key, member) to take a call back. Its scripts start with "#!lua flags=allow-key-locking", a flag
// only Upstash knows (stock Redis 7: "ERR Unexpected flag"), so the adapter drops that line and runs
// the script under the SHA-1 of the stripped text.
import { createHash } from "node:crypto";
import { Redis as IORedis } from "ioredis";

type Arg = string | number;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

/** Drops a leading "#!lua ..." line (shebang with flags); other scripts are returned unchanged. */
export function stripLuaFlags(script: string): string {
  return script.replace(/^\s*#!lua[^\n]*\n/, "");
}

/**
 * A dead Redis must fail a request at once and a living one must be found again without a restart:
 * no offline queue (a command is refused while disconnected instead of piling up), no replay of
 * unanswered commands after a reconnect (a stale count), a short connect timeout, and reconnect
 * attempts that never stop.
 */
export function createIoredisClient(url: string): IORedis {
  const client = new IORedis(url, {
    enableOfflineQueue: false,
    // Checks started in the same event-loop turn (concurrent requests) go out in one write and come
    // back in one read: fewer system calls on both sides, each still its own atomic script.
    enableAutoPipelining: true,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // Without a listener ioredis prints every failed reconnect; the rate limiter logs outages itself.
  client.on("error", () => undefined);
  return client;
}

export class IoredisScriptAdapter {
  /** SHA-1 of a script as @upstash/ratelimit knows it -> SHA-1 of the stripped script Redis runs. */
  private readonly strippedSha = new Map<string, string>();
  private readyWait: Promise<void> | undefined;
  private lastAnswerAt = Date.now();

  constructor(private readonly client: IORedis) {
    client.on("ready", () => (this.lastAnswerAt = Date.now()));
  }

  async evalsha(sha: string, keys: string[], args: Arg[]): Promise<unknown> {
    const stripped = this.strippedSha.get(sha);
    // Not seen in this process yet: answer as Redis would, so the caller sends eval() with the text.
    if (!stripped) throw new Error(`NOSCRIPT No matching script ${sha} in this process yet`);
    await this.whenReady();
    // A NOSCRIPT from Redis (script cache lost in a restart) reaches the caller, which sends eval().
    return this.answered(this.client.evalsha(stripped, keys.length, ...keys, ...args));
  }

  async eval(script: string, keys: string[], args: Arg[]): Promise<unknown> {
    const body = stripLuaFlags(script);
    this.strippedSha.set(sha1(script), sha1(body));
    await this.whenReady();
    // EVAL also caches the script in Redis, so the next evalsha of the stripped SHA finds it.
    return this.answered(this.client.eval(body, keys.length, ...keys, ...args));
  }

  async zrem(key: string, ...members: string[]): Promise<number> {
    await this.whenReady();
    return this.answered(this.client.zrem(key, ...members));
  }

  /**
   * A connection can stop answering without closing (Redis frozen, a peer gone behind NAT): its
   * commands would wait for TCP to give up, minutes later. When a check timed out and nothing has
   * answered for longer than the bound, drop the connection; ioredis connects again by itself.
   */
  replaceIfHung(timeoutMs: number): void {
    const status = this.client.status;
    if ((status === "ready" || status === "connect") && Date.now() - this.lastAnswerAt > timeoutMs) {
      this.lastAnswerAt = Date.now(); // one reconnect per stall, not one per waiting request
      this.client.disconnect(true);
    }
  }

  /**
   * Ready: go. Connecting: wait for the outcome (the caller's deadline bounds it), shared by all
   * waiting calls. Closed, or between reconnect attempts: fail now.
   */
  private whenReady(): Promise<void> | undefined {
    const status = this.client.status;
    if (status === "ready") return undefined;
    if (status !== "connecting" && status !== "connect") throw new Error(`Redis connection is ${status}`);
    this.readyWait ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        this.client.off("ready", onReady).off("close", onClose);
        this.readyWait = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => settle();
      const onClose = () => settle(new Error("Redis connection attempt failed"));
      this.client.once("ready", onReady).once("close", onClose);
    });
    return this.readyWait;
  }

  private async answered<T>(reply: Promise<T>): Promise<T> {
    const value = await reply;
    this.lastAnswerAt = Date.now();
    return value;
  }
}
