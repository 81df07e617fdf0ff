// The rules a line or a pack must meet before the dashboard or a price list may store it, as zod
// schemas shared by the forms (save-game-line.ts, save-pack.ts) and the CSV import. They follow the
// contract: order ids are SVCAPI-<two-letter line code>-..., catalog ids "SVC" + line code + pack
// token, and a line asks only for the identifiers POST /orders knows (userId, zoneId, serverId).
import { z } from "zod";
import { NO_CONTROL_CHARACTERS } from "../api-schemas/fields";
import { MAX_PRODUCT_PRICE_CENTS } from "./set-product-price";

export const LINE_KINDS = ["topup", "gamekey", "giftcard"] as const;
const IDENTIFIER_FIELDS = ["userId", "zoneId", "serverId"] as const;
/** A stock rule above this is a typo: no upload holds more codes than MAX_CODES_PER_UPLOAD ten times over. */
const MAX_STOCK_ALERT_BELOW = 100_000;

function plain(max: number) {
  return z
    .string()
    .trim()
    .min(1, "required")
    .max(max, `at most ${max} characters`)
    .regex(NO_CONTROL_CHARACTERS, "must not contain control characters");
}

const LineSlug = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "1-32 lower-case letters, digits and dashes");
const LineCode = z
  .string()
  .trim()
  .regex(/^[A-Z]{2}$/, "two capital letters (order ids are SVCAPI-<code>-...)");
const CatalogId = z
  .string()
  .trim()
  .regex(/^SVC[A-Z]{2}[0-9A-Z]{1,24}$/, 'SVC, the line\'s code, then 1-24 capital letters or digits, e.g. "SVCBR60"');
const PackName = plain(80);
const SupplierSku = plain(64);
const SupplierName = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "1-40 lower-case letters, digits and dashes");
const PriceCents = z
  .number()
  .int()
  .min(1, "must be more than $0.00")
  .max(MAX_PRODUCT_PRICE_CENTS, "must be at most $100,000.00");
const StockAlertBelow = z
  .number()
  .int("a whole number")
  .min(0, "0 or more")
  .max(MAX_STOCK_ALERT_BELOW, `at most ${MAX_STOCK_ALERT_BELOW}`)
  .nullable();

// A serverId is echoed at most 32 characters long (lib/api-schemas/order-schemas.ts), so every
// spelling a client may send fits in 32.
const ServerSpelling = plain(32);

const ServerIdOption = z.object({
  value: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,32}$/, "1-32 letters, digits, _ . or -"),
  label: ServerSpelling,
  aliases: z.array(ServerSpelling).max(10, "at most 10 aliases").optional(),
});

export const GameLineFields = z
  .object({
    slug: LineSlug,
    code: LineCode,
    gameName: plain(80),
    productName: plain(120),
    kind: z.enum(LINE_KINDS),
    requiredFields: z
      .array(z.object({ field: z.enum(IDENTIFIER_FIELDS), label: plain(40) }))
      .max(IDENTIFIER_FIELDS.length),
    serverIdOptions: z.array(ServerIdOption).min(1).max(50, "at most 50 servers").nullable(),
    orderable: z.boolean(),
    available: z.boolean(),
    supplier: SupplierName,
  })
  .superRefine((line, ctx) => {
    const fields = line.requiredFields.map((entry) => entry.field);
    if (new Set(fields).size !== fields.length)
      ctx.addIssue({ code: "custom", path: ["requiredFields"], message: "a field is listed twice" });
    if (line.kind !== "topup" && fields.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["requiredFields"],
        message: "game-key and gift-card lines take only pid, quantity and trxid: leave it empty",
      });
    if (line.kind === "topup" && !fields.includes("userId"))
      ctx.addIssue({ code: "custom", path: ["requiredFields"], message: "a top-up line needs userId" });
    const needsServers = fields.includes("serverId");
    if (needsServers && !line.serverIdOptions)
      ctx.addIssue({
        code: "custom",
        path: ["serverIdOptions"],
        message: "a line that asks for serverId lists its servers",
      });
    if (!needsServers && line.serverIdOptions)
      ctx.addIssue({
        code: "custom",
        path: ["serverIdOptions"],
        message: "only a line that asks for serverId lists servers",
      });
    // A client may send any spelling of a server; one spelling naming two servers would be a guess.
    const spellings = new Map<string, string>();
    for (const option of line.serverIdOptions ?? []) {
      for (const spelling of [option.value, option.label, ...(option.aliases ?? [])]) {
        const key = spelling.toLowerCase();
        const owner = spellings.get(key);
        if (owner !== undefined && owner !== option.value)
          ctx.addIssue({
            code: "custom",
            path: ["serverIdOptions"],
            message: `"${spelling}" names both ${owner} and ${option.value}`,
          });
        spellings.set(key, option.value);
      }
    }
  });
export type GameLineFields = z.output<typeof GameLineFields>;

export const PackFields = z.object({
  catalogId: CatalogId,
  packName: PackName,
  priceCents: PriceCents,
  active: z.boolean(),
  stockAlertBelow: StockAlertBelow,
  supplierSku: SupplierSku.nullable(),
});
export type PackFields = z.output<typeof PackFields>;

const FIELD_NAMES: Record<string, string> = {
  slug: "Slug",
  code: "Code",
  gameName: "Game name",
  productName: "Product name",
  kind: "Kind",
  requiredFields: "Required fields",
  serverIdOptions: "Server options",
  supplier: "Supplier",
  catalogId: "Catalog id",
  packName: "Name",
  priceCents: "Price",
  stockAlertBelow: "Stock alert below",
  supplierSku: "Supplier SKU",
};

/** How the price list names the pack fields: its columns. */
export const PRICE_LIST_NAMES: Record<string, string> = {
  catalogId: "catalog_id",
  packName: "name",
  priceCents: "price_usd",
  stockAlertBelow: "stock_alert_below",
  supplierSku: "supplier_sku",
};

/** Every issue of a failed parse as "Field: what is wrong" (`names`: the form's or the CSV's), in zod's order. */
export function describeIssues(error: z.ZodError, names: Record<string, string> = FIELD_NAMES): string[] {
  return error.issues.map((issue) => {
    const head = issue.path[0];
    const name = typeof head === "string" ? (names[head] ?? head) : "Value";
    const where = issue.path.length > 1 ? ` (${issue.path.slice(1).join(".")})` : "";
    return `${name}${where}: ${issue.message}`;
  });
}

/** Whether packs of this kind hold codes (and so may have a stock rule) rather than a supplier SKU. */
function isCodeStockKind(kind: (typeof LINE_KINDS)[number]): boolean {
  return kind !== "topup";
}

/** The pack rules that depend on its line: the id's prefix, SKU only on top-ups, stock rule only on code packs. */
export function packLineProblems(
  pack: Pick<PackFields, "catalogId" | "supplierSku" | "stockAlertBelow">,
  line: { code: string; kind: (typeof LINE_KINDS)[number]; slug: string },
  names: Record<string, string> = FIELD_NAMES,
): string[] {
  const problems: string[] = [];
  if (!pack.catalogId.startsWith(`SVC${line.code}`) || pack.catalogId.length === `SVC${line.code}`.length)
    problems.push(`${names.catalogId}: a pack of ${line.slug} starts with SVC${line.code}`);
  if (isCodeStockKind(line.kind)) {
    if (pack.supplierSku !== null)
      problems.push(`${names.supplierSku}: only top-up packs have one (this line delivers codes)`);
  } else {
    if (pack.supplierSku === null)
      problems.push(`${names.supplierSku}: a top-up pack needs the SKU its supplier sells`);
    if (pack.stockAlertBelow !== null)
      problems.push(`${names.stockAlertBelow}: top-ups have no code stock: leave it empty`);
  }
  return problems;
}

/** "userId: Player ID" per line, as the line form writes required fields. */
export function parseRequiredFieldsText(text: string): { field: string; label: string }[] {
  return text
    .split(/\r?\n/)
    .map((row) => row.trim())
    .filter((row) => row !== "")
    .map((row) => {
      const cut = row.indexOf(":");
      return cut < 0
        ? { field: row, label: row }
        : { field: row.slice(0, cut).trim(), label: row.slice(cut + 1).trim() };
    });
}

export function formatRequiredFieldsText(fields: { field: string; label: string }[]): string {
  return fields.map((entry) => `${entry.field}: ${entry.label}`).join("\n");
}

/** "value | Label | alias, alias" per line, as the line form writes server options; empty text is null. */
export function parseServerIdOptionsText(text: string): { value: string; label: string; aliases?: string[] }[] | null {
  const rows = text
    .split(/\r?\n/)
    .map((row) => row.trim())
    .filter((row) => row !== "");
  if (rows.length === 0) return null;
  return rows.map((row) => {
    const [value = "", label = "", aliases = ""] = row.split("|").map((part) => part.trim());
    const aliasList = aliases
      .split(",")
      .map((alias) => alias.trim())
      .filter((alias) => alias !== "");
    return { value, label: label || value, ...(aliasList.length ? { aliases: aliasList } : {}) };
  });
}

export function formatServerIdOptionsText(
  options: { value: string; label: string; aliases?: string[] }[] | null,
): string {
  return (options ?? [])
    .map((option) =>
      [option.value, option.label, ...(option.aliases?.length ? [option.aliases.join(", ")] : [])].join(" | "),
    )
    .join("\n");
}
