// GET /admin/accounts/:id/ledger.csv: the account's statement as a CSV download, for signed-in
// admins only (anyone else is sent to the sign-in page and gets no data).
import { exportAccountLedger } from "@/lib/dashboard/export-account-ledger";
import { requireAdminForAction } from "../../../../_lib/session";

export const dynamic = "force-dynamic";

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if ("refusal" in (await requireAdminForAction("viewer")))
    return new Response(null, { status: 307, headers: { location: "/admin/login" } });
  const { id } = await params;
  const accountId = /^\d{1,10}$/.test(id) && Number(id) <= 2_147_483_647 ? Number(id) : undefined;
  const csv = accountId === undefined ? undefined : await exportAccountLedger(accountId);
  if (csv === undefined) return new Response("account not found\n", { status: 404 });
  return new Response(csv, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="account-${accountId}-ledger.csv"`,
      "cache-control": "no-store",
    },
  });
}
