// The public API's routes, in the order the docs list them.
import type { PublicRoute } from "@/lib/http/public-route";
import { getCatalog, getProducts, getServices } from "./handlers/catalog";
import { getBalance, getMyIp, postBalance } from "./handlers/account";
import { getHistory, getLedger, getOrder, postOrder } from "./handlers/orders";
import { postBrVerify, postMobaVerify, postRedeem } from "./handlers/verify";
import { getEvents, postWebhookReplay } from "./handlers/events";

export const publicRoutes: PublicRoute[] = [
  getServices,
  getProducts,
  getCatalog,
  getMyIp,
  getBalance,
  postBalance,
  postOrder,
  getOrder,
  getHistory,
  getLedger,
  postBrVerify,
  postMobaVerify,
  postRedeem,
  getEvents,
  postWebhookReplay,
];
