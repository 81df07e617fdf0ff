import { publicRoute } from "@/lib/http/public-route";
import { MyIpResponse } from "@/lib/api-schemas/read-schemas";
import { otherMethods } from "@/lib/http/route-methods";

export const dynamic = "force-dynamic";

export const GET = publicRoute({
  method: "GET",
  operationId: "getMyIp",
  path: "/my-ip",
  tag: "Account",
  summary: "Your public IP as the service sees it (the address IP allowlists are checked against)",
  description:
    "Answers even where the key's IP allowlist would refuse the caller (IP_NOT_ALLOWED, IP_ALLOWLIST_REQUIRED), so a client " +
    "can learn which address to add. The key, the account state and the rate limit still apply.",
  ipAllowlist: false,
  response: MyIpResponse,
  example: {
    responses: {
      ip: { summary: "The address allowlists are checked against", value: { success: true, ip: "203.0.113.7" } },
    },
  },
  clientSample: (call) => `const { ip } = await ${call};`,
  errors: [],
  handle: async ({ clientIp }) => ({ success: true, ip: clientIp }),
});

export const { HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
