// Reads a request body as JSON within the size limit (lib/http/read-body-bytes.ts).
import { ApiError } from "./errors";
import { readBodyBytes } from "./read-body-bytes";

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const bytes = await readBodyBytes(request, maxBytes);
  if (bytes.length === 0) return undefined;

  const contentType = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\s*(;|$)/i.test(contentType)) throw new ApiError("UNSUPPORTED_MEDIA_TYPE");
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new ApiError("INVALID_JSON");
  }
}
