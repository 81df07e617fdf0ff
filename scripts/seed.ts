// npm run db:seed: loads the demo catalog and the demo account (idempotent).
import { withDatabase } from "./database";
import { env, pointAtDatabase } from "@/lib/config/env";
import { applyMigrations } from "@/lib/db/migrate";
import { seedDemoData } from "@/lib/seed/seed-demo-data";
import { closePool } from "@/lib/db/pool";

await withDatabase(async (url) => {
  await applyMigrations(url);
  pointAtDatabase(url);
  const result = await seedDemoData({ dataDir: env().dataDir, demoApiKey: env().demoApiKey });
  console.log(`[seed] demo account #${result.accountId} ready`);
  if (result.demoApiKey) console.log(`[seed] demo API key: ${result.demoApiKey}`);
  await closePool();
});
