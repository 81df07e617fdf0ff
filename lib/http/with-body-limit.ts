// Bounds the body of a Next.js route handler we do not write ourselves (next-auth's): the body is
// read here within the limit, then handed on as a fresh request. Over the limit: the catalogue's
// JSON 413, and the handler never runs.
import { NextRequest } from "next/server";
import { ApiError, errorResponse } from "./errors";
import { readBodyBytes } from "./read-body-bytes";

export function withBodyLimit<C>(
  handler: (request: NextRequest, context: C) => Promise<Response> | Response,
  maxBytes: number,
): (request: NextRequest, context: C) => Promise<Response> {
  return async (request, context) => {
    if (request.method === "GET" || request.method === "HEAD") return handler(request, context);
    let body: Buffer;
    try {
      body = await readBodyBytes(request, maxBytes);
    } catch (error) {
      if (error instanceof ApiError) return errorResponse(error.key, error.options);
      throw error;
    }
    const bounded = new NextRequest(request.url, {
      method: request.method,
      headers: request.headers,
      body: body.length > 0 ? new Uint8Array(body) : undefined,
    });
    return handler(bounded, context);
  };
}
