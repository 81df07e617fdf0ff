// A local stand-in for Upstash's REST API, executing every command on a real Redis through ioredis,
// so the Upstash backend is tested end to end without the internet. What @upstash/redis sends
// (node_modules/@upstash/redis, HttpClient.request and Pipeline.exec):
//   POST /            body ["CMD", arg...]            -> 200 { result } | 400 { error }
//   POST /pipeline    body [["CMD", ...], ...]         -> 200 [{ result } | { error }, ...]
//   POST /multi-exec  same, run atomically             -> 200 [{ result } | { error }, ...]
//   Authorization: Bearer <token> (else 401); "Upstash-Encoding: base64" asks for string results in
//   base64 ("OK" stays plain: the client's decoder expects that).
// Upstash accepts the "#!lua flags=..." first line of @upstash/ratelimit's scripts; stock Redis does
// not, so this server drops it and maps the SHA-1 of the original text to the stripped script, as
// Upstash's own script cache would answer EVALSHA for the original.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";

type Command = [string, ...(string | number)[]];
type Reply = { result: unknown } | { error: string };

export interface UpstashRestServer {
  url: string;
  token: string;
  close(): Promise<void>;
}

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

function encodeBase64(value: unknown): unknown {
  if (typeof value === "string") return value === "OK" ? value : Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(encodeBase64);
  return value;
}

export async function startUpstashRestServer(
  redisUrl: string,
  token = "test-upstash-token",
): Promise<UpstashRestServer> {
  const redis = new Redis(redisUrl);
  const strippedScripts = new Map<string, string>(); // SHA-1 of the original -> SHA-1 of the stripped script

  function rewrite(command: Command): Command {
    const [name, ...args] = command;
    const verb = String(name).toLowerCase();
    if (verb === "eval" && typeof args[0] === "string" && args[0].startsWith("#!lua")) {
      const stripped = args[0].replace(/^#!lua[^\n]*\n/, "");
      strippedScripts.set(sha1(args[0]), sha1(stripped));
      return [name, stripped, ...args.slice(1)];
    }
    if (verb === "evalsha" && strippedScripts.has(String(args[0]))) {
      return [name, strippedScripts.get(String(args[0]))!, ...args.slice(1)];
    }
    return command;
  }

  async function run(command: Command): Promise<Reply> {
    try {
      const [name, ...args] = rewrite(command);
      return { result: await redis.call(String(name), ...args) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  async function runAtomically(commands: Command[]): Promise<Reply[]> {
    const replies = await redis.multi(commands.map(rewrite).map(([name, ...args]) => ["call", name, ...args])).exec();
    return (replies ?? []).map(([error, result]) => (error ? { error: error.message } : { result }));
  }

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST") return send(405, { error: "only POST is served here" });
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: "Unauthorized" });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(400, { error: "ERR failed to parse command" });
    }
    const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
    const encode = (reply: Reply): Reply =>
      "result" in reply && base64 ? { result: encodeBase64(reply.result) } : reply;

    const path = (req.url ?? "/").split("?")[0];
    if (path === "/pipeline" || path === "/multi-exec") {
      const commands = body as Command[];
      const replies = path === "/pipeline" ? await Promise.all(commands.map(run)) : await runAtomically(commands);
      return send(200, replies.map(encode));
    }
    if (path === "/") {
      const reply = await run(body as Command);
      return send("error" in reply ? 400 : 200, encode(reply));
    }
    send(404, { error: `unknown path ${path}` });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
