// A reseller's client as docs/api.md tells one to behave: a request retried after a connection
// error, a 503 or a 429 (waiting what Retry-After says), with the same trxid. Every answer is checked
// against the OpenAPI document the service serves, and only the documented 503s may be a 5xx.
import type { OpenApiValidator } from "../helpers/openapi-validator";
import type { SoakHistory } from "./history";
import { readAnswer, type ApiResult as Answer } from "../helpers/read-answer";

/** The 503 codes the API documents: the caller is told to retry. */
const RETRYABLE_503 = new Set(["SERVICE_UNAVAILABLE", "RATE_LIMIT_UNAVAILABLE", "SUPPLIER_UNAVAILABLE", "MAINTENANCE"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SoakClient {
  constructor(
    private readonly baseUrl: string,
    private readonly validator: OpenApiValidator,
    private readonly history: SoakHistory,
    /** Whether a web process was down at time t (the load balancer may answer 502/503 then). */
    private readonly webDownAt: (t: number) => boolean,
  ) {}

  /** Each key's recent send times, for pacing. */
  private readonly sent = new Map<string, number[]>();

  /**
   * Waits until the key's rolling windows admit another call, with a margin: docs/api.md promises
   * that a client under 10 calls a second and 80 a minute is never refused, so a client that keeps
   * its retries there never fills its windows for good.
   */
  private async pace(key: string): Promise<void> {
    for (;;) {
      const now = Date.now();
      const log = (this.sent.get(key) ?? []).filter((t) => t > now - 60_000);
      this.sent.set(key, log);
      if (log.filter((t) => t > now - 1000).length < 8 && log.length < 70) {
        log.push(now);
        return;
      }
      await sleep(50);
    }
  }

  /** One request, paced unless `unpaced`; undefined when no HTTP answer came (refused, reset, timed out). */
  async send(key: string, method: string, url: string, body?: unknown, unpaced = false): Promise<Answer | undefined> {
    if (!unpaced) await this.pace(key);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(this.baseUrl + url, { method, headers, body: text, signal: AbortSignal.timeout(30_000) });
    } catch (error) {
      this.history.note(`${method} ${url} -> no answer (${(error as Error).cause ?? (error as Error).message})`);
      return undefined;
    }
    const answer = await readAnswer(response);
    const code = (answer.json as { code?: string } | undefined)?.code;
    this.history.note(`${method} ${url} -> ${response.status}${code ? ` ${code}` : ""}`);
    const fromService = (response.headers.get("content-type") ?? "").includes("application/json");
    if (!fromService && [502, 503, 504].includes(response.status)) {
      // HAProxy's own answer: no web process took the request, or the one that had it was killed
      // before answering. Only around a web process's death.
      const t = this.history.now();
      this.history.check(
        "load balancer answers only while a web process is down",
        this.webDownAt(t) ? undefined : `${response.status} from HAProxy at ${t} ms`,
      );
      return undefined;
    }
    this.history.check(
      "no 5xx but the documented 503s",
      response.status >= 500 && !(response.status === 503 && RETRYABLE_503.has(code ?? ""))
        ? `${method} ${url} answered ${response.status}: ${answer.text.slice(0, 300)}`
        : undefined,
    );
    const problems = this.validator.checkResponse(
      { method, url, headers, body: text },
      { status: response.status, headers: response.headers, text: answer.text },
    );
    this.history.check(
      "answers match the OpenAPI document",
      problems.length ? `${method} ${url} ${response.status}: ${problems.join("; ")}` : undefined,
    );
    return answer;
  }

  /**
   * Sends until a final answer (anything but no answer, 429 or 503), waiting as Retry-After says;
   * gives up after `patienceMs` and answers the last thing it got.
   */
  async untilFinal(
    key: string,
    method: string,
    url: string,
    body?: unknown,
    patienceMs = 120_000,
  ): Promise<Answer | undefined> {
    const deadline = Date.now() + patienceMs;
    for (;;) {
      const answer = await this.send(key, method, url, body);
      const retry = !answer || answer.status === 429 || answer.status === 503;
      if (!retry || Date.now() > deadline) return answer;
      const after = Number(answer?.headers.get("retry-after") ?? 0);
      await sleep(Math.min(Math.max(after * 1000, 200), 2000));
    }
  }
}
