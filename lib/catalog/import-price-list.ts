// A price list as CSV, the format export-catalog-csv.ts writes: one row per pack, found by its
// catalog id. A row for a pack that exists changes its name, price, active flag, stock rule or SKU;
// a row with a new catalog id creates the pack on the named line; packs the file does not name are
// left as they are. previewPriceList reads the file against the catalog and lists every change and
// every bad row (by its line in the file); importPriceList applies a list only when it has no bad
// row and is exactly the previewed one (same digest), in one transaction with one audit entry.
import crypto from "node:crypto";
import { readCsv, type CsvRecord } from "../csv/read-csv";
import { getPrisma, type PrismaDb } from "../db/prisma";
import { Prisma } from "../generated/prisma/client";
import { recordAuditEntry } from "../audit/sql/record-audit-entry";
import { numberFromDb } from "../db/number-from-db";
import { parseUsd } from "../money/parse-usd";
import { PRICE_LIST_NAMES, PackFields, describeIssues, packLineProblems } from "./catalog-fields";
import { MAX_PRODUCT_PRICE_CENTS } from "./set-product-price";
import { insertPack } from "./save-pack";

export const PRICE_LIST_COLUMNS = [
  "catalog_id",
  "line",
  "name",
  "price_usd",
  "active",
  "stock_alert_below",
  "supplier_sku",
] as const;
/** Columns a file must have; the others may be left out, and then those fields are not changed. */
const REQUIRED_COLUMNS = ["catalog_id", "line", "name", "price_usd", "active"] as const;
const MAX_PRICE_LIST_ROWS = 5_000;
export const MAX_PRICE_LIST_BYTES = 1_000_000;

type Column = (typeof PRICE_LIST_COLUMNS)[number];
type PackField = "packName" | "priceCents" | "active" | "stockAlertBelow" | "supplierSku";

export type PriceListChange =
  | {
      kind: "new";
      /** The row's line in the file (the header is line 1). */
      row: number;
      catalogId: string;
      line: string;
      packName: string;
      priceCents: number;
      active: boolean;
      stockAlertBelow: number | null;
      supplierSku: string | null;
    }
  | {
      kind: "update";
      row: number;
      catalogId: string;
      line: string;
      changes: { field: PackField; from: string | number | boolean | null; to: string | number | boolean | null }[];
    };

export interface PriceListPreview {
  changes: PriceListChange[];
  /** Rows that cannot be applied, with why; while there is one, nothing is applied. */
  errors: { row: number; message: string }[];
  /** Rows naming a pack exactly as it is. */
  unchanged: number;
  /** Names this list of changes against the catalog as it was read: apply checks it. */
  digest: string;
}

export type ImportPriceListResult =
  | { status: "applied"; created: number; updated: number; unchanged: number; auditId: number }
  | { status: "invalid"; preview: PriceListPreview }
  | { status: "stale"; preview: PriceListPreview }
  | { status: "nothing_to_apply" };

// The export escapes text starting with = + - @ tab or CR with an apostrophe (lib/csv/to-csv.ts):
// read it back as the text it was.
function unescapeCell(text: string): string {
  return /^'[=+\-@\t\r\n]/.test(text) ? text.slice(1) : text;
}

function parseActive(text: string): boolean | undefined {
  const value = text.trim().toLowerCase();
  if (["true", "yes", "1"].includes(value)) return true;
  if (["false", "no", "0"].includes(value)) return false;
  return undefined;
}

function digestOf(changes: PriceListChange[]): string {
  return crypto.createHash("sha256").update(JSON.stringify(changes)).digest("hex");
}

function failed(row: number, message: string): PriceListPreview {
  return { changes: [], errors: [{ row, message }], unchanged: 0, digest: digestOf([]) };
}

/** Reads the file against the catalog in `db` (a transaction's client when applying). */
export async function previewPriceList(csv: string, db: PrismaDb = getPrisma()): Promise<PriceListPreview> {
  const file = readPriceListFile(csv);
  if ("errors" in file) return file;
  const catalog = await readCatalogFor(file, db);
  const preview: PriceListPreview = { changes: [], errors: [], unchanged: 0, digest: "" };
  const firstRowOf = new Map<string, number>();
  for (const { record, info } of file.rows) {
    const row = info.lines;
    const outcome = previewRow(file, catalog, firstRowOf, record, row);
    if ("error" in outcome) preview.errors.push({ row, message: outcome.error });
    else if (outcome.change) preview.changes.push(outcome.change);
    else preview.unchanged++;
  }
  preview.errors.sort((a, b) => a.row - b.row);
  preview.digest = digestOf(preview.changes);
  return preview;
}

/** The file's rows, each with the file line it ends on, under a header naming known columns. */
interface PriceListFile {
  names: string[];
  rows: CsvRecord[];
}

/** The rows of the file, or why the file as a whole cannot be read. */
function readPriceListFile(csv: string): PriceListFile | PriceListPreview {
  const read = readCsv(csv, MAX_PRICE_LIST_BYTES);
  if ("error" in read) return failed(read.line, read.error);
  const [header, ...rows] = read.records;
  if (!header) return failed(1, `empty: the first line names the columns (${PRICE_LIST_COLUMNS.join(",")})`);
  const names = header.record.map((name) => name.toLowerCase());
  const unknown = names.filter((name) => !(PRICE_LIST_COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0)
    return failed(1, `unknown column ${unknown.join(", ")}: the columns are ${PRICE_LIST_COLUMNS.join(",")}`);
  const missing = REQUIRED_COLUMNS.filter((name) => !names.includes(name));
  if (missing.length > 0) return failed(1, `missing column ${missing.join(", ")}`);
  if (new Set(names).size !== names.length) return failed(1, "a column is named twice");
  if (rows.length === 0) return failed(1, "no rows under the header");
  if (rows.length > MAX_PRICE_LIST_ROWS)
    return failed(1, `${rows.length} rows: at most ${MAX_PRICE_LIST_ROWS} per file, split it`);
  return { names, rows };
}

/** A cell of `record` by column name, unescaped; undefined when the file has no such column. */
function cellOf(file: PriceListFile, record: string[], name: Column): string | undefined {
  const index = file.names.indexOf(name);
  return index < 0 ? undefined : unescapeCell(record[index] ?? "");
}

/** The lines, and the packs the file names, as they are in `db`. */
async function readCatalogFor(file: PriceListFile, db: PrismaDb) {
  // One after the other: `db` may be a transaction's client, which runs one statement at a time.
  const lines = await db.gameLine.findMany({ select: { id: true, slug: true, code: true, kind: true } });
  const products = await db.product.findMany({
    where: { catalogId: { in: file.rows.map(({ record }) => cellOf(file, record, "catalog_id") ?? "") } },
    include: { line: { select: { slug: true } } },
  });
  return {
    lineBySlug: new Map(lines.map((line) => [line.slug, line])),
    productById: new Map(products.map((product) => [product.catalogId, product])),
  };
}

type RowOutcome = { error: string } | { change?: PriceListChange };

/** One row: what it changes (nothing when it names a pack as it is), or why it cannot be applied. */
function previewRow(
  file: PriceListFile,
  catalog: Awaited<ReturnType<typeof readCatalogFor>>,
  firstRowOf: Map<string, number>,
  record: string[],
  row: number,
): RowOutcome {
  if (record.length !== file.names.length)
    return { error: `${record.length} cells, the header has ${file.names.length}` };
  const cell = (name: Column) => cellOf(file, record, name);
  const catalogId = cell("catalog_id")!;
  const lineSlug = cell("line")!;
  const earlier = firstRowOf.get(catalogId);
  if (earlier !== undefined) return { error: `${catalogId} is also on line ${earlier}: one row per pack` };
  if (catalogId !== "") firstRowOf.set(catalogId, row);

  const problems: string[] = [];
  const price = parseUsd(cell("price_usd")!.replace(/^\$/, ""), MAX_PRODUCT_PRICE_CENTS);
  if (!price.ok) problems.push(`price_usd: ${price.error}`);
  const active = parseActive(cell("active")!);
  if (active === undefined) problems.push("active: true or false");
  const alertText = cell("stock_alert_below");
  const stockAlertBelow = alertText === undefined || alertText === "" ? null : Number(alertText);
  if (alertText !== undefined && alertText !== "" && !/^\d{1,9}$/.test(alertText))
    problems.push("stock_alert_below: a whole number, or empty for no rule");
  const skuText = cell("supplier_sku");
  const existing = catalog.productById.get(catalogId);
  const line = catalog.lineBySlug.get(lineSlug);
  if (!line) problems.push(`line: no line ${lineSlug === "" ? "given" : lineSlug}`);
  else if (existing && existing.line.slug !== lineSlug)
    problems.push(`line: ${catalogId} belongs to ${existing.line.slug}; packs do not move between lines`);
  if (problems.length > 0 || !line || !price.ok || active === undefined) return { error: problems.join("; ") };

  // A column the file leaves out keeps the pack's value (a new pack: none).
  const fields = {
    catalogId,
    packName: cell("name")!,
    priceCents: price.cents,
    active,
    stockAlertBelow: alertText === undefined ? (existing?.stockAlertBelow ?? null) : stockAlertBelow,
    supplierSku: skuText === undefined ? (existing?.supplierSku ?? null) : skuText === "" ? null : skuText,
  };
  const checked = PackFields.safeParse(fields);
  if (!checked.success) return { error: describeIssues(checked.error, PRICE_LIST_NAMES).join("; ") };
  const pack = checked.data;
  const lineProblems = packLineProblems(pack, line, PRICE_LIST_NAMES);
  if (lineProblems.length > 0) return { error: lineProblems.join("; ") };
  if (!existing) return { change: { kind: "new", row, line: line.slug, ...pack } };
  const old = {
    packName: existing.packName,
    priceCents: numberFromDb(existing.priceCents),
    active: existing.active,
    stockAlertBelow: existing.stockAlertBelow,
    supplierSku: existing.supplierSku,
  };
  const changes = (Object.keys(old) as PackField[])
    .filter((field) => old[field] !== pack[field])
    .map((field) => ({ field, from: old[field], to: pack[field] }));
  return changes.length === 0 ? {} : { change: { kind: "update", row, catalogId, line: line.slug, changes } };
}

class StaleCatalog extends Error {}

type PackValues = Partial<Pick<PackFields, PackField>>;

/**
 * Applies the file when it reads, inside the transaction, as exactly the previewed list (digest) and
 * has no bad row: every change or none. A pack changed by someone else between the read and the
 * write (compare-and-set on its values) rolls everything back as "stale".
 */
export async function importPriceList(input: {
  csv: string;
  digest: string;
  actor: string;
}): Promise<ImportPriceListResult> {
  try {
    return await getPrisma().$transaction(async (tx) => {
      const preview = await previewPriceList(input.csv, tx);
      if (preview.errors.length > 0) return { status: "invalid" as const, preview };
      if (preview.digest !== input.digest) return { status: "stale" as const, preview };
      if (preview.changes.length === 0) return { status: "nothing_to_apply" as const };
      const lines = new Map((await tx.gameLine.findMany()).map((line) => [line.slug, line]));
      const offersAt: Record<string, string> = {};
      for (const change of preview.changes) {
        const line = lines.get(change.line)!;
        if (change.kind === "new") {
          const { kind: _kind, row: _row, line: _line, ...pack } = change;
          const created = await insertPack(tx, pack, line);
          if (created.offerAt) offersAt[pack.catalogId] = created.offerAt;
          continue;
        }
        const was = Object.fromEntries(change.changes.map((entry) => [entry.field, entry.from])) as PackValues;
        const now = Object.fromEntries(change.changes.map((entry) => [entry.field, entry.to])) as PackValues;
        const { count } = await tx.product.updateMany({ where: { catalogId: change.catalogId, ...was }, data: now });
        if (count !== 1) throw new StaleCatalog();
      }
      const created = preview.changes.filter((change) => change.kind === "new").length;
      const updated = preview.changes.length - created;
      const auditId = await recordAuditEntry(
        {
          actor: input.actor,
          action: "catalog.import",
          targetType: "catalog",
          details: {
            created,
            updated,
            unchanged: preview.unchanged,
            digest: preview.digest,
            offersAt,
            changes: preview.changes.map(({ row: _row, ...change }) => change),
          },
        },
        tx,
      );
      return { status: "applied" as const, created, updated, unchanged: preview.unchanged, auditId };
    });
  } catch (error) {
    // A pack changed, or a new catalog id created, by someone else since the read: nothing was applied.
    if (
      error instanceof StaleCatalog ||
      (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
    )
      return { status: "stale", preview: await previewPriceList(input.csv) };
    throw error;
  }
}
