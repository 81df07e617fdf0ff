// The scale bench's requests: each measurement is one kind of request (a path, or a body), rotated
// over a sample of references, sent at one connection (sequential, keep-alive: the per-request time)
// and at 50 (autocannon, as bench/load.ts: throughput and tail under load). A measurement is taken
// in several runs (the bench alternates the 10k and the 1M service run by run) and summarised over
// all of them (summarise()).
import http from "node:http";
import autocannon, { type AutocannonRequest } from "autocannon";
import { percentile, send as sendRequest } from "./load";

export interface ScaleRequest {
  method: "GET" | "POST";
  path: string;
  body?: string;
}

export interface ScaleTarget {
  name: string;
  label: string;
  /** The i-th request of a run (rotating over the sample, or a fresh trxid). */
  request(i: number): ScaleRequest;
}

export interface LatencyFigures {
  requests: number;
  p50: number;
  p99: number;
  reqPerSecond: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
}

/** One run's answers: every latency (ms), how long it was measured, and its failures. */
export interface LatencyRun {
  latencies: number[];
  seconds: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
}

/** The figures of several runs taken together: percentiles over every answer, req/s over their summed time. */
export function summarise(runs: LatencyRun[]): LatencyFigures {
  const sorted = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  const statusCodes: Record<string, number> = {};
  for (const run of runs)
    for (const [code, count] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    requests: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    reqPerSecond: sorted.length / Math.max(0.001, seconds),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    statusCodes,
  };
}

function send(port: number, key: string, spec: ScaleRequest, agent: http.Agent): Promise<number> {
  const headers: Record<string, string> = { "x-api-key": key };
  if (spec.body !== undefined) headers["content-type"] = "application/json";
  return sendRequest(port, { ...spec, headers }, agent);
}

/** Sends one request (for capturing its SQL); returns the status. */
export async function sendOnce(port: number, key: string, spec: ScaleRequest): Promise<number> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    return await send(port, key, spec, agent);
  } finally {
    agent.destroy();
  }
}

/** One connection, one request after another: `maxRequests` or `maxSeconds`, whichever ends first, after 5 unrecorded. */
export async function probeOneConnection(
  port: number,
  key: string,
  target: ScaleTarget,
  start: number,
  maxRequests: number,
  maxSeconds: number,
): Promise<LatencyRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const statusCodes: Record<string, number> = {};
  let non2xx = 0;
  let errors = 0;
  let i = start;
  const began = process.hrtime.bigint();
  let measuredFrom = began;
  try {
    for (let n = -5; n < maxRequests; n++) {
      if (n === 0) measuredFrom = process.hrtime.bigint();
      if (n > 0 && Number(process.hrtime.bigint() - measuredFrom) / 1e9 > maxSeconds) break;
      const spec = target.request(i++);
      const t = process.hrtime.bigint();
      let status = 0;
      try {
        status = await send(port, key, spec, agent);
      } catch {
        errors++;
      }
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (n < 0) continue;
      times.push(ms);
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      if (status < 200 || status > 299) non2xx++;
    }
  } finally {
    agent.destroy();
  }
  return {
    latencies: times,
    seconds: Number(process.hrtime.bigint() - measuredFrom) / 1e9,
    non2xx,
    errors,
    statusCodes,
  };
}

/** autocannon at `connections` for `seconds` (after a second unrecorded); every request from target.request. */
export async function loadConnections(
  port: number,
  key: string,
  target: ScaleTarget,
  start: number,
  connections: number,
  seconds: number,
): Promise<LatencyRun> {
  let i = start;
  const run = async (duration: number) => {
    const setupRequest = (request: AutocannonRequest): AutocannonRequest => {
      const spec = target.request(i++);
      request.method = spec.method;
      request.path = spec.path;
      request.headers =
        spec.body !== undefined ? { "x-api-key": key, "content-type": "application/json" } : { "x-api-key": key };
      if (spec.body !== undefined) request.body = spec.body;
      return request;
    };
    const latencies: number[] = [];
    const instance = autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      duration,
      timeout: 30,
      requests: [{ setupRequest }],
    });
    instance.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => latencies.push(ms));
    const result = await instance;
    const statusCodes = Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]),
    );
    return {
      latencies,
      seconds: result.duration,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      statusCodes,
    };
  };
  await run(1);
  return run(seconds);
}
