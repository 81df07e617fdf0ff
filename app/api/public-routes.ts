// The public API: each route file's handler, in the order the docs list them. Both hosts serve this
// list (at the root and under /api), and the OpenAPI document, /docs and the TypeScript client are
// built from it. Everything about a route (method, path, schemas, examples) is in its route file's
// spec; this list only says which exports and in what order. A route file whose public route is
// missing here fails tests/unit/route-files.test.ts.
import type { PublicRoute } from "@/lib/http/public-route";
import * as services from "./services/route";
import * as products from "./products/route";
import * as product from "./products/[id]/route";
import * as catalog from "./catalog/route";
import * as myIp from "./my-ip/route";
import * as balance from "./balance/route";
import * as orders from "./orders/route";
import * as order from "./orders/[orderId]/route";
import * as orderCancel from "./orders/[orderId]/cancel/route";
import * as orderRefundRequest from "./orders/[orderId]/refund-request/route";
import * as history from "./history/route";
import * as ledger from "./ledger/route";
import * as brvvfy from "./brvvfy/route";
import * as mobavfy from "./mobavfy/route";
import * as rdmbr from "./rdmbr/route";
import * as events from "./events/route";
import * as webhooksReplay from "./webhooks/replay/route";

export const publicRoutes: PublicRoute[] = [
  services.GET,
  products.GET,
  product.GET,
  catalog.GET,
  myIp.GET,
  balance.GET,
  balance.POST,
  orders.POST,
  order.GET,
  orderCancel.POST,
  orderRefundRequest.POST,
  history.GET,
  ledger.GET,
  brvvfy.POST,
  mobavfy.POST,
  rdmbr.POST,
  events.GET,
  webhooksReplay.POST,
];
