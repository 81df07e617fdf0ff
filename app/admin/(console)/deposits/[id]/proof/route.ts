// GET /admin/deposits/<id>/proof: the file a holder sent as proof of a deposit, for signed-in admins
// only. Images and PDFs open in the browser; anything else downloads, never rendered as a page of
// this origin (the holder chose its bytes).
import { readDepositProof } from "@/lib/deposits/list-deposit-requests";
import { requireAdminForAction } from "../../../../_lib/session";

export const dynamic = "force-dynamic";

const INLINE_TYPES = new Set(["image/jpeg", "image/png", "image/webp", "image/gif", "application/pdf"]);

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if ("refusal" in (await requireAdminForAction("viewer")))
    return new Response(null, { status: 307, headers: { location: "/admin/login" } });
  const { id } = await params;
  const proof = /^\d{1,9}$/.test(id) ? await readDepositProof(Number(id)) : undefined;
  if (!proof) return new Response("No proof file for this deposit request.\n", { status: 404 });
  const inline = INLINE_TYPES.has(proof.mime);
  const name = proof.fileName.replace(/[^\w.-]/g, "_");
  return new Response(Buffer.from(proof.bytes), {
    headers: {
      "content-type": inline ? proof.mime : "application/octet-stream",
      "content-disposition": `${inline ? "inline" : "attachment"}; filename="${name}"`,
      "content-security-policy": "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
    },
  });
}
