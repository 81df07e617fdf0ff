// Reads a request body as JSON with a hard size limit that holds for chunked bodies too (the
// Content-Length header is checked first, then the bytes actually received).
import { ApiError } from "./errors";

export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "");
  if (declared > maxBytes) throw new ApiError("PAYLOAD_TOO_LARGE", { message: `PAYLOAD TOO LARGE: at most ${maxBytes} bytes` });
  if (!request.body) return undefined;

  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ApiError("PAYLOAD_TOO_LARGE", { message: `PAYLOAD TOO LARGE: at most ${maxBytes} bytes` });
    }
    chunks.push(value);
  }
  if (size === 0) return undefined;

  const contentType = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\s*(;|$)/i.test(contentType)) throw new ApiError("UNSUPPORTED_MEDIA_TYPE");
  const text = Buffer.concat(chunks, size).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_JSON");
  }
}
