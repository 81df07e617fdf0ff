// A local webhook receiver over node:http: records every request (headers, raw body) and answers
// what the test scripts, one answer per request in order, then the default (200). An answer can
// also hang (never respond) to prove the sender's timeout.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: string } | "hang";

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  path: string;
  receivedAt: number;
  /** The status it was answered; undefined while held open ("hang"). */
  answeredStatus?: number;
}

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private script: ReceiverAnswer[] = [];
  private hanging = new Set<http.ServerResponse>();
  defaultAnswer: ReceiverAnswer = { status: 200, body: "ok" };

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = http.createServer((req, res) => receiver!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`);
    return receiver;
  }

  /** Requests being held open right now (answered "hang"). */
  get holding(): number {
    return this.hanging.size;
  }

  /** The next requests get these answers, in order. */
  answerNext(...answers: ReceiverAnswer[]): void {
    this.script.push(...answers);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
      const answer = this.script.shift() ?? this.defaultAnswer;
      this.received.push({
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        path: req.url ?? "",
        receivedAt: Date.now(),
        answeredStatus: answer === "hang" ? undefined : answer.status,
      });
      if (answer === "hang") {
        this.hanging.add(res);
        res.on("close", () => this.hanging.delete(res));
        return;
      }
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end(answer.body ?? "");
    });
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
