// npm run db:seed: loads the demo catalog and the demo account (idempotent). In production it loads
// the catalog's packs only: no account, money or key is ever created outside development.
import { withDatabase } from "./database";
import { env, pointAtDatabase } from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { seedForEnvironment } from "@/lib/seed/seed-demo-data";
import { closePool } from "@/lib/db/pool";

await withDatabase(async (url) => {
  await applyMigrations(url);
  pointAtDatabase(url);
  const config = env();
  const result = await seedForEnvironment({
    nodeEnv: config.nodeEnv,
    dataDir: config.dataDir,
    demoApiKey: config.demoApiKey,
  });
  if (result.accountId === undefined) {
    console.log("[seed] production: catalog loaded; no demo account, money or key (README: Production)");
  } else {
    console.log(`[seed] demo account #${result.accountId} ready`);
    if (result.demoApiKey) console.log(`[seed] demo API key: ${result.demoApiKey}`);
  }
  await closePool();
});
