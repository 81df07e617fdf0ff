// Reads a request body with a hard size limit that holds for chunked bodies too (the
// Content-Length header is checked first, then the bytes actually received).
import { ApiError } from "./errors";

/** The catalogue's error string as every code has it; the limit is in `maxBytes`. */
function payloadTooLarge(maxBytes: number): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", { extra: { maxBytes } });
}

export async function readBodyBytes(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    if (Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
    // A declared length bounds the body (the HTTP parser delivers no more than it), so it is read
    // whole. On the lean host that reads the socket's bytes directly; reading `request.body`
    // instead builds a Web Request and stream around them on every POST.
    const bytes = Buffer.from(await request.arrayBuffer());
    if (bytes.length > maxBytes) throw payloadTooLarge(maxBytes);
    return bytes;
  }
  if (!request.body) return Buffer.alloc(0);

  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
