import { publicRoute } from "@/lib/http/public-route";
import { serviceExample } from "@/lib/openapi/example-values";
import { listServices } from "@/lib/catalog/sql/list-services";
import { ServicesResponse } from "@/lib/api-schemas/read-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "listServices",
  path: "/services",
  tag: "Catalog",
  summary: "Game lines and the fields their orders require",
  description: "Only available lines are listed. `required` names the order-body fields each line needs.",
  response: ServicesResponse,
  example: {
    responses: {
      services: {
        summary: "Lines and their required fields",
        value: { success: true, services: [serviceExample("br"), serviceExample("gacha", 2)] },
      },
    },
  },
  clientSample: (call) => `const { services } = await ${call};`,
  errors: [],
  handle: async () => ({ success: true, services: await listServices() }),
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
