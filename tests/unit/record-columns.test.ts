// Some raw statements read camelCase records through column lists written by hand
// (lib/*/…-record.ts; the order, caller and catalog records are SQL functions, checked in
// tests/integration/record-functions.test.ts). A column under the wrong field would not fail any query (sent_user_id read
// as userId would still be a string), so each list is checked here against prisma/schema.prisma:
// every column exists in its table, and a field named like a model field reads that field's column.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "@/lib/config/env";
import { selectList } from "@/lib/db/select-list";
import { REDEMPTION_RECORD_COLUMNS } from "@/lib/redemptions/redemption-record";
import { WEBHOOK_DELIVERY_RECORD_COLUMNS, WEBHOOK_EVENT_RECORD_COLUMNS } from "@/lib/webhooks/webhook-record";

/** Each model's columns by field (a field without @map is its own column); relation fields have none. */
function readModels(schema: string): Map<string, Map<string, string>> {
  const columnTypes = new Set([
    "Int",
    "BigInt",
    "String",
    "Boolean",
    "DateTime",
    "Json",
    ...[...schema.matchAll(/^enum (\w+)/gm)].map((m) => m[1]),
  ]);
  const models = new Map<string, Map<string, string>>();
  for (const [, name, body] of schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const fields = new Map<string, string>();
    for (const [, field, type, rest] of body.matchAll(/^\s+(\w+)\s+(\w+)(?:\[\])?\??(.*)$/gm)) {
      if (columnTypes.has(type)) fields.set(field, /@map\("(\w+)"\)/.exec(rest)?.[1] ?? field);
    }
    models.set(name, fields);
  }
  return models;
}

const models = readModels(fs.readFileSync(path.join(projectRoot, "prisma/schema.prisma"), "utf8"));

/** `[alias, column, field]` of every plain column of a select list (expressions are skipped). */
function aliasedColumns(list: string): [string, string, string][] {
  return [...list.matchAll(/(?:(\w+)\.)?(\w+) AS "(\w+)"/g)].map(([, alias, column, field]) => [
    alias ?? "",
    column,
    field,
  ]);
}

function check(columns: [string, string, string][], modelByAlias: Record<string, string>) {
  expect(columns.length).toBeGreaterThan(0);
  for (const [alias, column, field] of columns) {
    const model = models.get(modelByAlias[alias])!;
    expect(model, `no model for alias "${alias}"`).toBeDefined();
    expect([...model.values()], `${field}: ${modelByAlias[alias]} has no column ${column}`).toContain(column);
    if (model.has(field)) expect(column, `${field} reads ${column}`).toBe(model.get(field));
  }
}

describe("the hot path's record column lists match schema.prisma", () => {
  it("reads the schema", () => {
    expect(models.get("Order")?.get("sentUserId")).toBe("sent_user_id");
    expect(models.get("Order")?.has("account")).toBe(false);
  });

  it("checks what it claims to: a column under the wrong field fails", () => {
    const swapped = selectList<{ userId: string }>({ userId: "sent_user_id" });
    expect(() => check(aliasedColumns(swapped), { "": "Order" })).toThrow();
  });

  it("redemptions", () => check(aliasedColumns(REDEMPTION_RECORD_COLUMNS), { "": "Redemption" }));

  it("webhooks", () => {
    check(aliasedColumns(WEBHOOK_EVENT_RECORD_COLUMNS), { "": "WebhookEvent" });
    check(aliasedColumns(WEBHOOK_DELIVERY_RECORD_COLUMNS), {
      d: "WebhookDelivery",
      ev: "WebhookEvent",
      e: "WebhookEndpoint",
    });
  });
});
