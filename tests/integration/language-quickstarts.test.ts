// The PHP and Python quickstarts (examples/php/quickstart.php, examples/python/quickstart.py) run
// as an integrator runs them: a child process with the demo key against the running service, a
// webhook endpoint registered for the demo account at the address the script listens on, and a
// worker that fulfils the order and delivers the webhook. Each places its order with a trxid,
// waits for it, reads it back by its order number, reads the ledger and verifies the real
// `order.completed` delivery. Each language's verify_webhook is also given a delivery the service
// signed, and refuses it tampered, under another secret and too old.
//
// php comes from Debian's php-cli (.ci/run installs it), python3 is the machine's. A missing
// interpreter fails under CI and is skipped, named, elsewhere.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { seedDemoData } from "@/lib/seed/seed-demo-data";
import type { RunningWorker } from "@/lib/fulfilment/sql/run-worker";
import { startLocalWebhooksWorker } from "../helpers/local-webhooks-worker";
import { removeWebhookEndpoint } from "@/lib/webhooks/remove-webhook-endpoint";
import { suiteBaseUrl } from "../helpers/suite";
import { sql } from "../helpers/db";
import { freePort } from "../helpers/free-port";
import { useCleanDatabase } from "../helpers/clean-database";
import { addEndpoint, recordEvent } from "../helpers/webhooks";
import { WebhookReceiver, type ReceivedWebhook } from "../helpers/webhook-receiver";

const run = promisify(execFile);

interface Language {
  name: string;
  interpreter: string;
  script: string;
  /** Runs the script's verify function on each delivery of the list on stdin: a line for each, the event's type or "refused". */
  verifyArgs: (script: string) => string[];
}

const LANGUAGES: Language[] = [
  {
    name: "PHP",
    interpreter: "php",
    script: "examples/php/quickstart.php",
    verifyArgs: (script) => [
      "-r",
      `require ${JSON.stringify(script)};
       foreach (json_decode(stream_get_contents(STDIN), true) as $d) {
         try { echo verify_webhook($d['secret'], $d['headers'], $d['body'], 300, $d['now'])['type'], "\n"; }
         catch (WebhookVerificationError $e) { echo "refused\n"; }
       }`,
    ],
  },
  {
    name: "Python",
    interpreter: "python3",
    script: "examples/python/quickstart.py",
    verifyArgs: (script) => [
      "-c",
      `import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("quickstart", ${JSON.stringify(script)})
q = importlib.util.module_from_spec(spec); spec.loader.exec_module(q)
for d in json.load(sys.stdin):
    try: print(q.verify_webhook(d["secret"], d["headers"], d["body"].encode(), 300, d["now"])["type"])
    except q.WebhookVerificationError: print("refused")`,
    ],
  },
];

async function interpreterMissing(language: Language, context: { skip: () => void }): Promise<boolean> {
  if (await run(language.interpreter, ["--version"]).catch(() => undefined)) return false;
  const message = `the ${language.name} quickstart needs ${language.interpreter} on PATH (Debian: apt-get install ${
    language.interpreter === "php" ? "php-cli" : "python3"
  }); it is not installed here`;
  if (process.env.CI) throw new Error(message);
  console.warn(`SKIPPED: ${message}`);
  context.skip();
  return true;
}

let worker: RunningWorker;
let demo: { accountId: number; key: string };

useCleanDatabase({ catalog: false, checkBooks: true });
beforeAll(async () => {
  const seeded = await seedDemoData();
  if (!seeded.demoApiKey) throw new Error("the seed made no demo key");
  demo = { accountId: seeded.accountId, key: seeded.demoApiKey };
  worker = await startLocalWebhooksWorker({
    concurrency: 2,
    webhookConcurrency: 2,
  });
});
afterAll(async () => {
  await worker?.stop();
});

describe.each(LANGUAGES)("the $name quickstart", (language) => {
  const script = path.join(projectRoot, language.script);

  it(
    "places an order with a trxid, waits for it, reads the ledger and verifies the order's webhook",
    { timeout: 120_000 },
    async (context) => {
      if (await interpreterMissing(language, context)) return;
      const port = await freePort();
      const endpoint = await addEndpoint(demo.accountId, `http://127.0.0.1:${port}/hooks`, ["order.completed"]);
      const trxid = `qs-${language.interpreter}-${Date.now()}`;
      try {
        const { stdout } = await run(language.interpreter, [script], {
          cwd: projectRoot,
          timeout: 110_000,
          env: {
            ...process.env,
            TOPUP_API_URL: suiteBaseUrl(),
            TOPUP_API_KEY: demo.key,
            TRXID: trxid,
            WEBHOOK_SECRET: endpoint.secret,
            WEBHOOK_LISTEN: `127.0.0.1:${port}`,
          },
        });
        const rows = await sql<{ public_id: string; status: string; debits: number }>(
          `SELECT o.public_id, o.status,
                (SELECT count(*)::int FROM ledger_entries l WHERE l.order_id = o.id AND l.kind = 'debit') AS debits
           FROM orders o WHERE o.account_id = $1 AND o.trxid = $2`,
          [demo.accountId, trxid],
        );
        expect(rows).toMatchObject([{ status: "completed", debits: 1 }]);
        const publicId = rows[0]!.public_id;
        const lines = stdout.trim().split("\n");
        expect(lines[0]).toMatch(/^balance: \d+\.\d\d USD$/);
        expect(lines[1]).toBe("pack: SVCBR60 (Battle Royale, 60 UC) 0.99 USD");
        expect(lines[2]).toBe(`placed: ${publicId} processing (trxid ${trxid})`);
        expect(lines[3]).toBe(`finished: ${publicId} completed`);
        expect(lines[4]).toBe(`order number: ${parseInt(publicId.split("-")[2]!, 36)} reads ${publicId}`);
        expect(lines[5]).toBe("ledger (newest first):");
        expect(lines[6]).toMatch(new RegExp(`^  debit -0\\.99 -> \\d+\\.\\d\\d ${publicId}$`));
        expect(lines.at(-1)).toMatch(
          new RegExp(`^webhook: order\\.completed ${publicId} verified \\(webhook-id evt_[\\w-]+\\)$`),
        );
        expect(lines.filter((line) => line.startsWith("webhook: refused"))).toEqual([]);
        // The service saw its delivery accepted (the script answers 204 only to a verified one). The
        // worker records that after the answer, which the script sends just before it exits: waited for.
        await expect
          .poll(async () => {
            const [delivery] = await sql<{ status: string }>(
              `SELECT d.status FROM webhook_deliveries d WHERE d.endpoint_id = $1`,
              [endpoint.endpointId],
            );
            return delivery?.status;
          })
          .toBe("delivered");
      } finally {
        await removeWebhookEndpoint({ accountId: demo.accountId, endpointId: endpoint.endpointId, actor: "test" });
      }
    },
  );

  it(
    "verify_webhook accepts the service's signature (also beside a rotated one) and refuses a tampered body, another secret, a stale timestamp",
    { timeout: 60_000 },
    async (context) => {
      if (await interpreterMissing(language, context)) return;
      const receiver = await WebhookReceiver.start();
      const endpoint = await addEndpoint(demo.accountId, `${receiver.url}/${language.interpreter}`);
      let delivery: ReceivedWebhook | undefined;
      try {
        await recordEvent(
          demo.accountId,
          "endpoint.test",
          { endpointId: endpoint.endpointId, url: endpoint.url, message: "hi" },
          endpoint.endpointId,
        );
        await expect.poll(() => (delivery = receiver.received[0]), { timeout: 30_000, interval: 100 }).toBeDefined();
      } finally {
        await removeWebhookEndpoint({ accountId: demo.accountId, endpointId: endpoint.endpointId, actor: "test" });
        await receiver.close();
      }
      const signedAt = Number(delivery!.headers["webhook-timestamp"]);
      const signature = delivery!.headers["webhook-signature"]!;
      const cases: { secret?: string; body?: string; now?: number; signature?: string; expected: string }[] = [
        { expected: "endpoint.test" },
        { body: delivery!.body.replace('"hi"', '"hj"'), expected: "refused" },
        { secret: "whsec_" + Buffer.from("another secret, 32 bytes long!!!").toString("base64"), expected: "refused" },
        { now: signedAt + 301, expected: "refused" },
        { now: signedAt - 301, expected: "refused" },
        { now: signedAt + 299, expected: "endpoint.test" },
        // While a rotated secret overlaps, the old and the new signature come together.
        { signature: `v1,${Buffer.alloc(32).toString("base64")} ${signature}`, expected: "endpoint.test" },
        { signature: `v1,${Buffer.alloc(32).toString("base64")}`, expected: "refused" },
      ];
      const input = cases.map((change) => ({
        secret: change.secret ?? endpoint.secret,
        headers: { ...delivery!.headers, "webhook-signature": change.signature ?? signature },
        body: change.body ?? delivery!.body,
        now: change.now ?? signedAt,
      }));
      // One process for every case: an interpreter's start is the slow part on a busy machine.
      const child = execFile(language.interpreter, language.verifyArgs(script), { cwd: projectRoot, timeout: 60_000 });
      child.stdin!.end(JSON.stringify(input));
      let stdout = "";
      child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      expect(await new Promise<number | null>((resolve) => child.on("close", resolve))).toBe(0);
      expect(stdout.trim().split("\n")).toEqual(cases.map((c) => c.expected));
    },
  );
});
