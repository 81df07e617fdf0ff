// GET /admin/orders/export.csv: the orders page's filtered orders as a CSV download, for signed-in
// admins only (anyone else is sent to the sign-in page and gets no data).
import { streamOrdersCsv } from "@/lib/dashboard/export-orders";
import { requireAdminForAction } from "../../../_lib/session";
import { readOrderFilters } from "../read-order-filters";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  if ("refusal" in (await requireAdminForAction("viewer")))
    return new Response(null, { status: 307, headers: { location: "/admin/login" } });
  const { filters, problems } = await readOrderFilters(Object.fromEntries(new URL(request.url).searchParams));
  if (problems.length > 0) {
    return new Response(`${problems.join("\n")}\n`, {
      status: 400,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  }
  const day = new Date().toISOString().slice(0, 10);
  return new Response(streamOrdersCsv(filters), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="orders-${day}.csv"`,
      "cache-control": "no-store",
    },
  });
}
