// order_record, api_caller, catalog_entry and webhook_delivery (SQL functions of prisma/functions/)
// name the fields of the hot path's records. A column under the wrong field would not fail any query (sent_user_id read as
// userId is still a string), so each record is compared with what Prisma reads for the same row: every
// field named like a model field holds that field's value.
import { describe, expect, it } from "vitest";
import { getPrisma } from "@/lib/db/prisma";
import { hashApiKey } from "@/lib/auth/api-key-format";
import { COLUMNS_OUTSIDE_ORDER_RECORD } from "@/lib/orders/order-record";
import { firstOf, sql, sqlRow } from "../helpers/db";
import { createAccount } from "../helpers/fixtures";
import { newTrxid, order } from "../helpers/orders";
import { useCleanDatabase } from "../helpers/clean-database";
import { addEndpoint, deliveriesOf, recordEvent } from "../helpers/webhooks";

useCleanDatabase({ checkBooks: true });

/** Prisma's value as pg hands the record's (bigint cents as numbers). */
const plain = (value: unknown) => (typeof value === "bigint" ? Number(value) : value);

function expectSameFields(record: Record<string, unknown>, model: Record<string, unknown>, renamed = {}) {
  const names: Record<string, string> = renamed;
  for (const [field, value] of Object.entries(record)) {
    const source = names[field] ?? field;
    expect(source in model, `${field} is no field of the model`).toBe(true);
    expect(plain(value), field).toEqual(plain(model[source]));
  }
}

describe("the records' fields read the columns Prisma reads", () => {
  it("order_record: every field of an order, the client's identifiers apart from the canonical ones", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    const placed = await order(account.key, {
      pid: "SVCGA60",
      trxid: newTrxid(),
      userId: "8001",
      serverId: "NA",
      metadata: { cartId: "c-1" },
    });
    expect(placed.status).toBe(200);
    const record = await sqlRow(`SELECT (order_record(o)).* FROM orders o WHERE o.public_id = $1`, [
      placed.json.orderId,
    ]);
    const model = await getPrisma().order.findUniqueOrThrow({ where: { publicId: placed.json.orderId } });
    // Every column of orders but those the type leaves out, so OrderRecord (Order without them) is true.
    const outside: readonly string[] = COLUMNS_OUTSIDE_ORDER_RECORD;
    expect(Object.keys(record).sort()).toEqual(
      Object.keys(model)
        .filter((field) => !outside.includes(field))
        .sort(),
    );
    expect(record.sentServerId).toBe("NA");
    expectSameFields(record, model);
  });

  it("api_caller: the key, its allowlist and its account's state", async () => {
    const account = await createAccount({ balanceCents: 1000 });
    await getPrisma().ipAllowEntry.create({ data: { apiKeyId: account.keyId, cidr: "203.0.113.7/32" } });
    const caller = await sqlRow(`SELECT * FROM api_caller(key_hash => $1)`, [hashApiKey(account.key)]);
    const key = await getPrisma().apiKey.findUniqueOrThrow({
      where: { id: account.keyId },
      include: { account: true },
    });
    const { keyId, keyCreatedAt, cidrs, accountCreatedAt, accountId, requireIpAllowlist, livemode, ...accountFields } =
      caller;
    expect({ keyId, keyCreatedAt, accountId, requireIpAllowlist, cidrs, livemode }).toEqual({
      keyId: key.id,
      keyCreatedAt: key.createdAt,
      accountId: key.accountId,
      requireIpAllowlist: key.requireIpAllowlist,
      cidrs: ["203.0.113.7/32"],
      livemode: true,
    });
    expect(accountCreatedAt).toEqual(key.account.createdAt);
    expectSameFields(accountFields, key.account);
    await getPrisma().apiKey.update({ where: { id: account.keyId }, data: { revokedAt: new Date() } });
    expect(await sql(`SELECT * FROM api_caller(key_hash => $1)`, [hashApiKey(account.key)])).toEqual([]);
  });

  it("catalog_entry: the pack and its line (at list price: no tier)", async () => {
    const entry = await sqlRow(`SELECT * FROM catalog_entry(catalog_id => 'SVCGA60', price_tier_id => NULL)`);
    const product = await getPrisma().product.findUniqueOrThrow({
      where: { catalogId: "SVCGA60" },
      include: { line: true },
    });
    const { productId, productActive, lineSlug, lineCode, lineKind, lineAvailable, lineOrderable, ...rest } = entry;
    expect({ productId, productActive }).toEqual({ productId: product.id, productActive: product.active });
    expect({ lineSlug, lineCode, lineKind, lineAvailable, lineOrderable }).toEqual({
      lineSlug: product.line.slug,
      lineCode: product.line.code,
      lineKind: product.line.kind,
      lineAvailable: product.line.available,
      lineOrderable: product.line.orderable,
    });
    const { requiredFields, serverIdOptions, supplier, realSupplier, ...productFields } = rest;
    expect({ requiredFields, serverIdOptions, supplier }).toEqual({
      requiredFields: product.line.requiredFields,
      serverIdOptions: product.line.serverIdOptions,
      supplier: product.line.supplier,
    });
    // The demo catalog's top-ups are carried by the sandbox alone.
    expect(realSupplier).toBe(false);
    expectSameFields(productFields, product);
  });

  it("webhook_delivery: the delivery, its event and its endpoint", async () => {
    const account = await createAccount();
    const endpoint = await addEndpoint(account.accountId, "http://127.0.0.1:9/hook");
    const event = await recordEvent(account.accountId, "endpoint.test", { n: 1 }, endpoint.endpointId);
    const { id } = firstOf(await deliveriesOf(event.id));
    const delivery = await sqlRow(`SELECT * FROM webhook_delivery(delivery_id => $1)`, [id]);
    const model = await getPrisma().webhookDelivery.findUniqueOrThrow({
      where: { id: BigInt(id) },
      include: { event: true, endpoint: true },
    });
    const { eventPublicId, eventType, eventData, eventCreatedAt, ...rest } = delivery;
    expect({ eventPublicId, eventType, eventData, eventCreatedAt }).toEqual({
      eventPublicId: model.event.publicId,
      eventType: model.event.type,
      eventData: model.event.data,
      eventCreatedAt: model.event.createdAt,
    });
    const { id: deliveryId, status, attempts, endpointId, livemode, ...endpointFields } = rest;
    expect(livemode).toBe(true);
    expectSameFields({ id: deliveryId, status, attempts, endpointId }, model);
    expectSameFields(endpointFields, model.endpoint);
  });
});
