import { publicRoute } from "@/lib/http/public-route";
import { listServices } from "@/lib/catalog/sql/list-services";
import { listProducts } from "@/lib/catalog/sql/list-products";
import { ProductsResponse, ServicesResponse } from "@/lib/api-schemas/read-schemas";

export const getServices = publicRoute({
  method: "GET",
  path: "/services",
  tag: "Catalog",
  summary: "Game lines and the fields their orders require",
  description: "Only available lines are listed. `required` names the order-body fields each line needs.",
  response: ServicesResponse,
  errors: [],
  handle: async () => ({ success: true, services: await listServices() }),
});

const productsSpec = {
  method: "GET" as const,
  tag: "Catalog",
  response: ProductsResponse,
  errors: [],
  handle: async () => ({ success: true, products: await listProducts() }),
};

export const getProducts = publicRoute({
  ...productsSpec,
  path: "/products",
  summary: "The catalog: one row per active pack",
  description:
    "Each `id` is a catalog id usable as `pid` on POST /orders. `stock` is present on game-key and gift-card packs.",
});

export const getCatalog = publicRoute({
  ...productsSpec,
  path: "/catalog",
  summary: "Alias of GET /products (same payload)",
});
