// A Bot API server on the loopback interface that the real bot talks to over HTTP (telegram.apiRoot)
// as it would talk to Telegram: it answers the calls the bot makes (getMe, sendMessage,
// editMessageText, answerCallbackQuery, getFile and the file download ...) the way Telegram does,
// refuses HTML Telegram would refuse, records every call, and builds the updates a user's message,
// photo, document or button press produces.
// `npm run bot:console` runs the bot against it; the tests' fake Bot API (tests/helpers) extends it
// with polling, webhooks and injected failures.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Update } from "telegraf/types";

export interface RecordedCall {
  method: string;
  /** The JSON the bot sent. */
  payload: Record<string, unknown>;
  /** What the server answered: the sent message (with its message_id), true, or an error body. */
  response?: unknown;
}

/** An inline keyboard as the bot sends it in reply_markup. */
export interface InlineKeyboardMarkup {
  inline_keyboard?: Array<Array<{ text: string; callback_data?: string; url?: string }>>;
}

export interface LocalUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
}

export interface ApiAnswer {
  status: number;
  body: { ok: boolean; result?: unknown; error_code?: number; description?: string };
}

export interface LocalBotApiOptions {
  /** Where update ids start (the first is this plus one); 1000 by default. */
  firstUpdateId?: number;
  /** Hands out update ids instead of the counter. */
  nextUpdateId?: () => number;
}

const LOCAL_BOT_USER = { id: 7_000_000_001, is_bot: true, first_name: "Top-up Bot", username: "topup_test_bot" };

/** What the bot must send as its token: the server refuses any other with 401, as Telegram does. */
const LOCAL_BOT_TOKEN = "7000000001:TEST-token-for-the-fake-bot-api";

const ok = (result: unknown): ApiAnswer => ({ status: 200, body: { ok: true, result } });
const error = (status: number, description: string): ApiAnswer => ({
  status,
  body: { ok: false, error_code: status, description },
});

export class LocalBotApi<Call extends RecordedCall = RecordedCall> {
  readonly token = LOCAL_BOT_TOKEN;
  readonly botUser = LOCAL_BOT_USER;
  /** Every call the server answered through answer(), in order. */
  readonly calls: Call[] = [];
  readonly apiRoot: string;

  /** Files users sent (addFile): getFile names them, /file/bot<token>/<path> serves their bytes. */
  private readonly files = new Map<string, { bytes: Buffer; path: string; uniqueId: string }>();
  private nextUpdate: number;
  private readonly updateIds: (() => number) | undefined;
  protected nextMessage = 1;

  /** Use listen(); `server` is already listening. */
  constructor(
    private readonly server: http.Server,
    options: LocalBotApiOptions = {},
  ) {
    this.apiRoot = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.nextUpdate = (options.firstUpdateId ?? 1001) - 1;
    this.updateIds = options.nextUpdateId;
  }

  /** Starts a server of `this` class on a free loopback port. */
  static async listen<T extends LocalBotApi<RecordedCall>>(
    this: new (server: http.Server, options: LocalBotApiOptions) => T,
    options: LocalBotApiOptions = {},
  ): Promise<T> {
    let api: T | undefined;
    const server = http.createServer((req, res) => void api!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    api = new this(server, options);
    return api;
  }

  // ---- building updates ----------------------------------------------------------------------

  newUpdateId(): number {
    return this.updateIds ? this.updateIds() : ++this.nextUpdate;
  }

  /** A text message; a leading /command gets the bot_command entity Telegram adds. */
  message(
    from: LocalUser,
    text: string,
    chat: { id: number; type: "private" | "group" | "supergroup" } = { id: from.id, type: "private" },
  ): Update {
    const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
    return {
      update_id: this.newUpdateId(),
      message: {
        message_id: this.nextMessage++,
        date: Math.floor(Date.now() / 1000),
        chat:
          chat.type === "private"
            ? { id: chat.id, type: "private", first_name: from.first_name, username: from.username }
            : { id: chat.id, type: chat.type, title: "A group" },
        from: { ...from, is_bot: false },
        text,
        ...(command ? { entities: [{ type: "bot_command" as const, offset: 0, length: command[0].length }] } : {}),
      },
    } as Update;
  }

  /** Stores a file as Telegram does when a user sends one; the file_id the update carries. */
  addFile(bytes: Uint8Array, name: string): { file_id: string; file_unique_id: string; file_size: number } {
    const n = this.files.size + 1;
    const fileId = `file-${n}-${Math.random().toString(36).slice(2, 10)}`;
    const uniqueId = `u${n}`;
    this.files.set(fileId, { bytes: Buffer.from(bytes), path: `documents/file_${n}_${name}`, uniqueId });
    return { file_id: fileId, file_unique_id: uniqueId, file_size: bytes.byteLength };
  }

  /** A photo (stored with addFile) with an optional caption; Telegram sends a small size and the photo's own. */
  photo(from: LocalUser, fileId: string, caption?: string): Update {
    const file = this.files.get(fileId);
    if (!file) throw new Error(`no file ${fileId}: addFile first`);
    const update = this.message(from, "") as Update.MessageUpdate;
    const { text: _text, ...message } = update.message as { text: string };
    const size = {
      file_id: fileId,
      file_unique_id: file.uniqueId,
      file_size: file.bytes.length,
      width: 800,
      height: 600,
    };
    const thumb = this.addFile(file.bytes.subarray(0, Math.min(100, file.bytes.length)), "thumb.jpg");
    const photo = [{ ...thumb, width: 90, height: 67 }, size];
    return { ...update, message: { ...message, photo, ...(caption ? { caption } : {}) } } as Update;
  }

  /** A document (stored with addFile) with an optional caption. */
  document(from: LocalUser, fileId: string, fileName: string, mimeType: string, caption?: string): Update {
    const file = this.files.get(fileId);
    if (!file) throw new Error(`no file ${fileId}: addFile first`);
    const update = this.message(from, "") as Update.MessageUpdate;
    const { text: _text, ...message } = update.message as { text: string };
    const document = {
      file_id: fileId,
      file_unique_id: file.uniqueId,
      file_size: file.bytes.length,
      file_name: fileName,
      mime_type: mimeType,
    };
    return { ...update, message: { ...message, document, ...(caption ? { caption } : {}) } } as Update;
  }

  /** A press of an inline button with `data` on the bot's message `messageId` in `from`'s chat. */
  callback(from: LocalUser, data: string, messageId: number, messageText = "(button message)"): Update {
    const updateId = this.newUpdateId();
    return {
      update_id: updateId,
      callback_query: {
        id: `cb-${updateId}`,
        from: { ...from, is_bot: false },
        chat_instance: `ci-${from.id}`,
        data,
        message: {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: from.id, type: "private", first_name: from.first_name },
          from: LOCAL_BOT_USER,
          text: messageText,
        },
      },
    } as Update;
  }

  // ---- the Bot API -----------------------------------------------------------------------------

  /**
   * A call answered outside answer() (the tests' getUpdates long poll): return true once `reply`
   * has been or will be called. Such calls are not recorded.
   */
  protected takeOver(
    _method: string,
    _payload: Call["payload"],
    _res: http.ServerResponse,
    _reply: (answer: ApiAnswer) => void,
  ): boolean {
    return false;
  }

  /** Telegram's answer to one call. */
  protected answer(method: string, payload: Call["payload"]): ApiAnswer {
    switch (method) {
      case "getMe":
        return ok(LOCAL_BOT_USER);
      case "setMyCommands":
      case "answerCallbackQuery":
        return ok(true);
      case "sendMessage": {
        if (typeof payload.text !== "string" || payload.text.length === 0)
          return error(400, "Bad Request: message text is empty");
        if (payload.text.length > 4096) return error(400, "Bad Request: message is too long");
        const problem = payload.parse_mode === "HTML" ? htmlProblem(payload.text) : undefined;
        if (problem) return error(400, `Bad Request: can't parse entities: ${problem}`);
        return ok({
          message_id: this.nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(payload.chat_id), type: "private" },
          from: LOCAL_BOT_USER,
          text: payload.text,
        });
      }
      case "editMessageText": {
        if (typeof payload.text !== "string" || payload.text.length === 0)
          return error(400, "Bad Request: message text is empty");
        const problem = payload.parse_mode === "HTML" ? htmlProblem(payload.text) : undefined;
        if (problem) return error(400, `Bad Request: can't parse entities: ${problem}`);
        return ok({
          message_id: payload.message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(payload.chat_id), type: "private" },
          from: LOCAL_BOT_USER,
          text: payload.text,
        });
      }
      case "getFile": {
        const file = typeof payload.file_id === "string" ? this.files.get(payload.file_id) : undefined;
        if (!file) return error(400, "Bad Request: invalid file_id");
        return ok({
          file_id: payload.file_id,
          file_unique_id: file.uniqueId,
          file_size: file.bytes.length,
          file_path: file.path,
        });
      }
      case "sendPhoto":
      case "sendDocument": {
        const field = method === "sendPhoto" ? "photo" : "document";
        const file = typeof payload[field] === "string" ? this.files.get(payload[field]) : undefined;
        if (!file) return error(400, "Bad Request: wrong file identifier/HTTP URL specified");
        const caption = payload.caption;
        if (typeof caption === "string" && caption.length > 1024)
          return error(400, "Bad Request: message caption is too long");
        const problem = typeof caption === "string" && payload.parse_mode === "HTML" ? htmlProblem(caption) : undefined;
        if (problem) return error(400, `Bad Request: can't parse entities: ${problem}`);
        return ok({
          message_id: this.nextMessage++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(payload.chat_id), type: "private" },
          from: LOCAL_BOT_USER,
          [field]:
            field === "photo"
              ? [{ file_id: payload[field], file_unique_id: file.uniqueId }]
              : { file_id: payload[field] },
          ...(typeof caption === "string" ? { caption } : {}),
        });
      }
      case "editMessageReplyMarkup":
        return ok({
          message_id: payload.message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(payload.chat_id), type: "private" },
          from: LOCAL_BOT_USER,
        });
      default:
        // A method nobody answers here is an error to see, not a silent success.
        return error(404, `Not Found: method ${method} is not faked`);
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const pathname = new URL(req.url ?? "/", "http://x").pathname;
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(pathname);
    if (download) return this.serveFile(download[1]!, decodeURIComponent(download[2]!), res);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(pathname);
    let recorded: Call | undefined;
    const reply = ({ status, body }: ApiAnswer) => {
      if (recorded) recorded.response = body.ok ? body.result : body;
      if (res.writableEnded || res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (!match) return reply(error(404, "Not Found"));
    if (match[1] !== this.token) return reply(error(401, "Unauthorized"));
    const method = match[2]!;
    let payload: Call["payload"] = {};
    const raw = Buffer.concat(chunks).toString("utf8");
    if (raw) {
      try {
        payload = JSON.parse(raw);
      } catch {
        return reply(error(400, "Bad Request: this fake reads JSON bodies only"));
      }
    }
    if (this.takeOver(method, payload, res, reply)) return;
    recorded = { method, payload } as Call;
    this.calls.push(recorded);
    reply(this.answer(method, payload));
  }

  /** The file download (https://api.telegram.org/file/bot<token>/<file_path>): the bytes, or 404. */
  private serveFile(token: string, filePath: string, res: http.ServerResponse): void {
    const file = token === this.token ? [...this.files.values()].find((entry) => entry.path === filePath) : undefined;
    if (!file) {
      res.writeHead(404, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ ok: false, error_code: 404, description: "Not Found" }));
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file.bytes.length });
    res.end(file.bytes);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The subset of Telegram's HTML rules a bot can break by forgetting to escape: tags must be known
 * and balanced, and "<", ">", "&" outside tags must be escaped. Returns a description or undefined.
 */
function htmlProblem(text: string): string | undefined {
  const allowed = new Set([
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "code",
    "pre",
    "a",
    "tg-spoiler",
    "blockquote",
    "span",
  ]);
  const stack: string[] = [];
  const tokens = text.split(/(<[^>]*>)/);
  for (const token of tokens) {
    if (token.startsWith("<")) {
      const tag = /^<(\/?)([a-z-]+)(\s[^>]*)?>$/.exec(token);
      if (!tag || !allowed.has(tag[2]!)) return `unsupported tag ${token}`;
      if (tag[1]) {
        if (stack.pop() !== tag[2]) return `unbalanced ${token}`;
      } else stack.push(tag[2]!);
    } else {
      if (token.includes(">")) return `unescaped ">"`;
      if (/&(?!(amp|lt|gt|quot|#\d+);)/.test(token)) return `unescaped "&"`;
    }
  }
  return stack.length ? `unclosed <${stack.at(-1)}>` : undefined;
}

/** Buttons of a recorded sendMessage / editMessageText call: [text, callback_data] pairs. */
export function buttonsOf(call: RecordedCall | undefined): Array<[string, string]> {
  const keyboard = (call?.payload.reply_markup as InlineKeyboardMarkup | undefined)?.inline_keyboard ?? [];
  return keyboard.flat().map((button) => [button.text, button.callback_data ?? ""]);
}

/** Tags stripped and entities decoded: what the user reads. */
export function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, "&");
}
