// The demo catalog loaded by `npm run db:seed`: three top-up lines plus one game-key and
// one gift-card line with codes in stock. Catalog ids are "SVC" + line code + pack token.
import type { LineKind } from "../generated/prisma/enums";

export interface DemoLine {
  slug: string;
  code: string;
  gameName: string;
  productName: string;
  kind: LineKind;
  requiredFields: { field: string; label: string }[];
  serverIdOptions?: { value: string; label: string; aliases?: string[] }[];
  products: { token: string; packName: string; priceCents: number; supplierSku?: string; codes?: number }[];
}

export const demoCatalog: DemoLine[] = [
  {
    slug: "br",
    code: "BR",
    gameName: "Battle Royale",
    productName: "Battle Royale UC Top-Up",
    kind: "topup",
    requiredFields: [{ field: "userId", label: "Player ID" }],
    products: [
      { token: "60", packName: "60 UC", priceCents: 99, supplierSku: "br-60" },
      { token: "325", packName: "325 UC", priceCents: 499, supplierSku: "br-325" },
      { token: "660", packName: "660 UC", priceCents: 999, supplierSku: "br-660" },
    ],
  },
  {
    slug: "moba",
    code: "MB",
    gameName: "MOBA Legends",
    productName: "MOBA Diamonds Top-Up",
    kind: "topup",
    requiredFields: [
      { field: "userId", label: "User ID" },
      { field: "zoneId", label: "Zone ID" },
    ],
    products: [
      { token: "86", packName: "86 Diamonds", priceCents: 159, supplierSku: "moba-86" },
      { token: "172", packName: "172 Diamonds", priceCents: 309, supplierSku: "moba-172" },
    ],
  },
  {
    slug: "gacha",
    code: "GA",
    gameName: "Gacha Impact",
    productName: "Gacha Crystals Top-Up",
    kind: "topup",
    requiredFields: [
      { field: "userId", label: "UID" },
      { field: "serverId", label: "Server" },
    ],
    serverIdOptions: [
      { value: "asia", label: "Asia", aliases: ["AS"] },
      { value: "america", label: "America", aliases: ["NA", "US"] },
      { value: "europe", label: "Europe", aliases: ["EU"] },
      { value: "tw_hk_mo", label: "TW, HK, MO", aliases: ["TW_HK_MO", "TW/HK/MO", "SAR"] },
    ],
    products: [
      { token: "60", packName: "60 Crystals", priceCents: 99, supplierSku: "gacha-60" },
      { token: "330", packName: "300+30 Crystals", priceCents: 499, supplierSku: "gacha-330" },
    ],
  },
  {
    slug: "keys",
    code: "GK",
    gameName: "PC Game Keys",
    productName: "PC Game Keys",
    kind: "gamekey",
    requiredFields: [],
    products: [
      { token: "INDIE", packName: "Indie Game Key", priceCents: 499, codes: 5 },
      { token: "AAA", packName: "AAA Game Key", priceCents: 2999, codes: 3 },
    ],
  },
  {
    slug: "giftcards",
    code: "GC",
    gameName: "Store Gift Cards",
    productName: "Store Gift Cards",
    kind: "giftcard",
    requiredFields: [],
    products: [
      { token: "10", packName: "$10 Gift Card", priceCents: 1000, codes: 5 },
      { token: "25", packName: "$25 Gift Card", priceCents: 2500, codes: 3 },
    ],
  },
];

export function catalogId(lineCode: string, token: string): string {
  return `SVC${lineCode}${token}`;
}

/** The demo line with this slug; throws on an unknown one, so a mistyped example or test fails loudly. */
export function demoLine(slug: string): DemoLine {
  const line = demoCatalog.find((candidate) => candidate.slug === slug);
  if (!line) throw new Error(`no demo line "${slug}"`);
  return line;
}

/** The demo pack with this catalog id, and its line; throws on an unknown id. */
export function demoPack(id: string): { line: DemoLine; pack: DemoLine["products"][number] } {
  for (const line of demoCatalog) {
    const pack = line.products.find((product) => catalogId(line.code, product.token) === id);
    if (pack) return { line, pack };
  }
  throw new Error(`no demo pack "${id}"`);
}

/** Deterministic demo codes, so seeding twice adds none. */
export function demoCode(lineCode: string, token: string, index: number): string {
  return `DEMO-${lineCode}${token}-${String(index).padStart(4, "0")}`;
}
