// The first requests a fresh `next start` receives, sent the moment it reports ready. Node reads
// the Host header of a request that arrives while Next is still starting, before our code has
// installed the peer-address stamp (lib/http/peer-address.ts), so such a request has no stamp,
// or only what the client sent under the stamp's name. Each first request is answered from the
// API or, while the address cannot be known, 503 SERVICE_UNAVAILABLE with Retry-After; never a
// 500 (what it answered before), and a client's own `x-topup-peer-address` is never taken as its
// address.
import { afterAll, expect, it } from "vitest";
import { createAccount } from "../helpers/fixtures";
import { startNextServer, type NextServer } from "../helpers/next-start";
import { TEST_ENV } from "../setup/test-env";
import { useCleanDatabase } from "../helpers/clean-database";
import { suiteDatabaseUrl } from "../helpers/suite";

const STARTS = 4;
const FORGED = "203.0.113.77";
const servers: NextServer[] = [];
useCleanDatabase();
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

async function answer(response: Response): Promise<{ status: number; body: any; retryAfter: string | null }> {
  return { status: response.status, body: await response.json(), retryAfter: response.headers.get("retry-after") };
}

function expectServedOrStarting(
  seen: { status: number; body: any; retryAfter: string | null },
  served: number,
  what: string,
) {
  if (seen.status === 503) {
    expect(seen.body.code, what).toBe("SERVICE_UNAVAILABLE");
    expect(seen.retryAfter, what).toBe("1");
  } else {
    expect(seen.status, `${what}: ${JSON.stringify(seen.body)}`).toBe(served);
  }
}

it(`answers the first requests of ${STARTS} fresh starts from the API or 503 while starting, never 500, never a forged address`, async () => {
  const account = await createAccount({ balanceCents: 1000 });
  let served = 0;
  for (let start = 0; start < STARTS; start++) {
    const server = await startNextServer({ ...TEST_ENV, DATABASE_URL: suiteDatabaseUrl() });
    servers.push(server);
    const [health, myIp, badKey] = await Promise.all([
      fetch(`${server.baseUrl}/healthz`).then(answer),
      fetch(`${server.baseUrl}/my-ip`, { headers: { "x-api-key": account.key!, "x-topup-peer-address": FORGED } }).then(
        answer,
      ),
      fetch(`${server.baseUrl}/balance`, { headers: { "x-api-key": "not-a-key" } }).then(answer),
    ]);
    expectServedOrStarting(health, 200, "GET /healthz");
    expectServedOrStarting(myIp, 200, "GET /my-ip with a forged stamp");
    expectServedOrStarting(badKey, 401, "GET /balance with a bad key");
    if (myIp.status === 200) {
      served++;
      expect(JSON.stringify(myIp.body)).not.toContain(FORGED);
      expect(JSON.stringify(myIp.body)).toContain("127.0.0.1");
    }
    // Once started, every request is served.
    const later = await fetch(`${server.baseUrl}/my-ip`, {
      headers: { "x-api-key": account.key!, "x-topup-peer-address": FORGED },
    }).then(answer);
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    expect(JSON.stringify(later.body)).not.toContain(FORGED);
    await server.stop();
  }
  console.log(
    `[next start] first requests served at once on ${served} of ${STARTS} fresh starts (the rest 503 while starting)`,
  );
}, 300_000);
