// `node --import tsx --import ./bench/no-auth/register.ts scripts/serve.ts`: the same service with
// API-key authentication and per-key rate limiting replaced by bench-only stand-ins, to measure
// what those two cost. Nothing in the service changes: module resolution hands the wrapper the
// stand-ins (hooks.ts). BENCH_STUBS picks which: "auth,ratelimit" (default), "auth" or "ratelimit".
// Never used outside the bench.
import { register } from "node:module";

const wanted = (process.env.BENCH_STUBS ?? "auth,ratelimit").split(",").map((name) => name.trim());
register("./hooks.ts", import.meta.url, { data: { stubs: wanted } });
console.log(`[no-auth] stubbed out for the bench: ${wanted.join(", ")}`);
