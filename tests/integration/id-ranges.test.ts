// Every id the API accepts is checked against its column's range before it reaches PostgreSQL: an
// id no row can have is the documented 400 (or 404 for an order reference), never a 500 from an
// integer overflow in the query.
import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { createAccount } from "../helpers/fixtures";
import { useCleanDatabase } from "../helpers/clean-database";

useCleanDatabase();

const INT4_MAX = 2_147_483_647;

describe("ids outside their column's range", () => {
  it("POST /webhooks/replay refuses an endpointId above the int column's range with 400", async () => {
    const account = await createAccount();
    for (const endpointId of [INT4_MAX + 1, 2 ** 40, Number.MAX_SAFE_INTEGER]) {
      const res = await api(`/webhooks/replay`, { key: account.key, body: { after: 0, endpointId } });
      expect(res.status, String(endpointId)).toBe(400);
      expect(res.json.error).toBe("INVALID BODY");
    }
    // The largest id the column holds is a well-formed id that is not this account's.
    const last = await api(`/webhooks/replay`, { key: account.key, body: { after: 0, endpointId: INT4_MAX } });
    expect(last.status).toBe(404);
  });

  it("POST /webhooks/replay takes any sequence number a bigint holds that JSON carries exactly", async () => {
    const account = await createAccount();
    const wide = await api(`/webhooks/replay`, {
      key: account.key,
      body: { after: Number.MAX_SAFE_INTEGER - 1, through: Number.MAX_SAFE_INTEGER },
    });
    expect(wide.status).toBe(200);
    expect(wide.json).toEqual({ success: true, events: 0, deliveries: 0 });
    for (const body of [{ after: 2 ** 60 }, { through: -1 }, { after: 1.5 }]) {
      const res = await api(`/webhooks/replay`, { key: account.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toBe("INVALID BODY");
    }
  });

  it("GET /events takes the widest `after` it accepts, and refuses wider", async () => {
    const account = await createAccount();
    expect((await api(`/events?after=999999999999999`, { key: account.key })).status).toBe(200);
    const res = await api(`/events?after=99999999999999999999`, { key: account.key });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("INVALID REQUEST");
  });

  it("GET /orders/:orderId answers 404 for numeric ids no order can have", async () => {
    const account = await createAccount();
    for (const id of [String(INT4_MAX), String(INT4_MAX + 1), "#9999999999", "99999999999999999999999"]) {
      const res = await api(`/orders/${encodeURIComponent(id)}`, { key: account.key });
      expect(res.status, id).toBe(404);
    }
  });

  it("GET /history and /ledger refuse page numbers past their range with 400", async () => {
    const account = await createAccount();
    for (const path of ["/history?page=100001", "/history?page=9999999999", "/ledger?page=9999999999"]) {
      const res = await api(path, { key: account.key });
      expect(res.status, path).toBe(400);
      expect(res.json.error).toBe("INVALID REQUEST");
    }
  });
});
