// GET /admin/catalog/export.csv: the catalog as a price list, in the columns the import reads, for
// signed-in admins only (anyone else is sent to the sign-in page and gets no data).
import { exportCatalogCsv } from "@/lib/catalog/export-catalog-csv";
import { requireAdminForAction } from "../../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  if ("refusal" in (await requireAdminForAction("viewer")))
    return new Response(null, { status: 307, headers: { location: "/admin/login" } });
  return new Response(await exportCatalogCsv(), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="catalog.csv"',
      "cache-control": "no-store",
    },
  });
}
