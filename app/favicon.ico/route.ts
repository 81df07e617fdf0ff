// GET /favicon.ico: browsers ask for it beside every page (the dashboard, /docs). A 16×16 icon (a
// white up arrow on the dashboard's accent blue, a PNG inside an ICO) instead of the JSON 404 every
// other unknown path gets, so a browser shows the service's icon and logs no failed request.
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

const ICON = Uint8Array.from(
  Buffer.from(
    "AAABAAEAEBAAAAEAIABwAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAQAAAAEAgGAAAAH/P/YQAAADdJREFUeNpjYAAC+fj9/8nBDJRohhtCUwNggCwD0AFJBuACRBlACOA1gFhA+zAYNYDeeYHS7AwAz8aKr5MvtGgAAAAASUVORK5CYII=",
    "base64",
  ),
);

export function GET(): Response {
  return new Response(ICON, {
    status: 200,
    headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400" },
  });
}

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
