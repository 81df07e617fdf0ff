// Loads the demo catalog and, in development only, a demo account with an API key and a $100 demo
// credit. Running it again changes nothing: every row is found by its natural key first.
import fs from "node:fs";
import path from "node:path";
import { getPrisma } from "../db/prisma";
import { issueApiKey } from "../accounts/issue-api-key";
import { generateApiKey, hashApiKey, displayPrefix, isWellFormedApiKey } from "../auth/api-key-format";
import { creditWallet } from "../wallet/credit-wallet";
import { encryptCode, fingerprintCode } from "../codes/code-crypto";
import { catalogId, demoCatalog, demoCode } from "./demo-catalog";

const DEMO_ACCOUNT_USERNAME = "demo";
export const DEMO_CREDIT_CENTS = 10_000;

export interface SeedResult {
  accountId: number;
  /** The plain demo key when this run created it, or when it was remembered in the data dir. */
  demoApiKey?: string;
}

/**
 * The catalog's lines and packs. `demo: false` (production) leaves out what is not real: the
 * game-key and gift-card demo codes (a production install imports its own, docs/operations.md) and
 * the sandbox supplier with its offers (an owner adds the real suppliers, docs/suppliers.md).
 */
export async function seedDemoCatalog(options: { demo?: boolean } = {}): Promise<void> {
  const prisma = getPrisma();
  const demo = options.demo ?? true;
  // The demo's top-ups go to one supplier account, the in-process sandbox, each pack at cost 0
  // until an admin sets its cost.
  const sandbox = demo
    ? await prisma.supplier.upsert({
        where: { name: "sandbox" },
        update: {},
        create: { name: "sandbox", kind: "sandbox" },
      })
    : undefined;
  for (const [lineIndex, line] of demoCatalog.entries()) {
    const row = await prisma.gameLine.upsert({
      where: { slug: line.slug },
      update: {},
      create: {
        slug: line.slug,
        code: line.code,
        gameName: line.gameName,
        productName: line.productName,
        kind: line.kind,
        requiredFields: line.requiredFields,
        serverIdOptions: line.serverIdOptions ?? undefined,
        sortOrder: lineIndex,
      },
    });
    for (const [productIndex, product] of line.products.entries()) {
      const id = catalogId(line.code, product.token);
      const productRow = await prisma.product.upsert({
        where: { catalogId: id },
        update: {},
        create: {
          catalogId: id,
          lineId: row.id,
          packName: product.packName,
          priceCents: product.priceCents,
          supplierSku: product.supplierSku,
          sortOrder: productIndex,
        },
      });
      if (sandbox && line.kind === "topup" && product.supplierSku) {
        await prisma.supplierOffer.upsert({
          where: { productId_supplierId: { productId: productRow.id, supplierId: sandbox.id } },
          update: {},
          create: { productId: productRow.id, supplierId: sandbox.id, sku: product.supplierSku },
        });
      }
      if (demo && product.codes) {
        const codes = Array.from({ length: product.codes }, (_, i) => demoCode(line.code, product.token, i + 1));
        await prisma.inventoryCode.createMany({
          data: codes.map((code) => ({
            productId: productRow.id,
            ciphertext: encryptCode(code),
            codeHash: fingerprintCode(code),
          })),
          skipDuplicates: true,
        });
      }
    }
  }
}

async function seedDemoAccount(options: { dataDir?: string; demoApiKey?: string } = {}): Promise<SeedResult> {
  const prisma = getPrisma();
  const keyFile = options.dataDir ? path.join(options.dataDir, "demo-api-key") : undefined;
  let account = await prisma.account.findFirst({
    where: { telegramUsername: DEMO_ACCOUNT_USERNAME, telegramId: null },
  });
  account ??= await prisma.account.create({
    data: { telegramUsername: DEMO_ACCOUNT_USERNAME, displayName: "Demo reseller", apiEnabled: true },
  });

  let demoApiKey: string | undefined;
  const activeKeys = await prisma.apiKey.count({ where: { accountId: account.id, revokedAt: null } });
  if (activeKeys === 0) {
    const wanted = options.demoApiKey && isWellFormedApiKey(options.demoApiKey) ? options.demoApiKey : undefined;
    const plainKey = wanted
      ? { key: wanted, hash: hashApiKey(wanted), prefix: displayPrefix(wanted) }
      : generateApiKey();
    const issued = await issueApiKey(account.id, "seed", { name: "demo", plainKey });
    if (issued.status !== "created") throw new Error(`could not issue the demo key: ${issued.status}`);
    demoApiKey = issued.key;
    if (keyFile) {
      fs.mkdirSync(path.dirname(keyFile), { recursive: true });
      fs.writeFileSync(keyFile, `${demoApiKey}\n`, { mode: 0o600 });
    }
  } else if (options.dataDir) {
    demoApiKey = await readRememberedDemoKey(options.dataDir);
  }

  const ledgerEntries = await prisma.ledgerEntry.count({ where: { accountId: account.id } });
  if (ledgerEntries === 0) {
    await creditWallet({ accountId: account.id, amountCents: DEMO_CREDIT_CENTS, actor: "seed", reason: "demo credit" });
  }
  return { accountId: account.id, demoApiKey };
}

/** The demo key written by an earlier seed into the data dir, if it still opens the API. */
export async function readRememberedDemoKey(dataDir: string): Promise<string | undefined> {
  const keyFile = path.join(dataDir, "demo-api-key");
  if (!fs.existsSync(keyFile)) return undefined;
  const remembered = fs.readFileSync(keyFile, "utf8").trim();
  const stillValid = await getPrisma().apiKey.count({ where: { keyHash: hashApiKey(remembered), revokedAt: null } });
  return stillValid ? remembered : undefined;
}

export async function isDatabaseEmpty(): Promise<boolean> {
  return (await getPrisma().gameLine.count()) === 0 && (await getPrisma().account.count()) === 0;
}

export async function seedDemoData(options: { dataDir?: string; demoApiKey?: string } = {}): Promise<SeedResult> {
  await seedDemoCatalog();
  return seedDemoAccount(options);
}

/**
 * What `npm start` and `npm run db:seed` load. Outside production: the demo catalog and the demo
 * account, its credit and its key. In production no account, money or key is ever created here
 * (the first account comes through the bot, funded by an admin); only the catalog's packs, without
 * the demo codes and without the sandbox supplier. Returns the demo key to print, which production
 * never has.
 */
export async function seedForEnvironment(options: {
  nodeEnv: string;
  dataDir: string;
  demoApiKey?: string;
}): Promise<{ accountId?: number; demoApiKey?: string }> {
  if (options.nodeEnv === "production") {
    await seedDemoCatalog({ demo: false });
    return {};
  }
  return seedDemoData({ dataDir: options.dataDir, demoApiKey: options.demoApiKey });
}
