// An HTTP answer read whole: its text, and its JSON when the text is JSON (undefined otherwise).
// Vitest-free, so the soak (tests/soak) reads answers the way the suite does.

export interface ApiResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function readAnswer(response: Response): Promise<ApiResult> {
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
