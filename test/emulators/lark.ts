/**
 * A loopback emulator of the Feishu/Lark open platform, enough for the real `@larksuiteoapi/node-sdk`:
 * - open API: `auth/v3/tenant_access_token/internal`, `bot/v3/info`, `im/v1/messages` (create),
 *   `im/v1/messages/:id/reply`, `PUT im/v1/messages/:id` (edit), `PATCH im/v1/messages/:id` (update a
 *   shared card); every send is recorded; interactive cards keep their buttons;
 * - card button presses: the `card.action.trigger` callback, pushed over the long connection or POSTed
 *   to a webhook like an event (`cardActionEvent`);
 * - fault injection: reject the next post messages (code 230001), or mark a message as withdrawn;
 * - webhook delivery to an adapter: plain, or encrypted (AES-256-CBC) and signed, compact JSON, and
 *   `url_verification` challenges;
 * - the long connection: `POST /callback/ws/endpoint` and a WebSocket speaking the SDK's protobuf
 *   `pbbp2.Frame` protocol (ping/pong, event frames, acks), with `pushWsEvent`.
 * Listens on 127.0.0.1 with an ephemeral port.
 *
 * Rules of the real service it models:
 * - `<at user_id="…"></at>` in a `text` message is a mention (`user_id="all"` mentions everyone),
 *   while the text of a `post` element is shown as written (Feishu docs, "发送消息内容" / message content:
 *   text messages support `<at>`; post mentions need a separate `at` element);
 * - request bodies of `im/v1/messages` are capped: 150 KB for text, 30 KB for post and card messages
 *   (Feishu docs, im-v1 message create, 请求体); over that the API answers 230025;
 * - frequency control: HTTP 429 with code 99991400 and `x-ogw-ratelimit-reset` seconds (Feishu docs,
 *   API call guide → frequency control), and 230020 when one chat gets more than 5 messages a second
 *   (im-v1 message create, 使用限制). Tests trigger either with `throttleNext`;
 * - files: `POST im/v1/files` is a multipart upload (`file_type`, `file_name`, `file`) answering a
 *   `file_key`; the file "must not exceed 30 MB, and empty files are not allowed" (Feishu docs, im-v1
 *   file create, 使用限制: 文件大小不得超过 30 MB，且不允许上传空文件), refused with 234006 and 234010
 *   (its error-code table); a `file` message's content is `{"file_key": …}` naming an uploaded file
 *   (发送消息内容 → 文件). Tests lower the limit with `fileSizeLimit` to see an upload refused;
 * - updating a card (`PATCH im/v1/messages/:id`, server-docs im-v1 message-card patch, 注意事项): the
 *   request body of a card is at most 30 KB (卡片及富文本消息请求体最大不能超过30KB) — the body, where
 *   `content` is escaped once more — and one message takes at most 5 updates a second
 *   (单条消息更新频控为5QPS); over that it answers 230020;
 * - card callbacks must be answered within 3 s (feishu-cards "handle card callbacks" / 延时更新消息卡片:
 *   需要在接收回调的 3 秒内先以 HTTP 200 状态码响应该回调); an answer that comes later is an error the
 *   user sees, so `pushWsEvent` of a `card.action.trigger` fails when the ack takes longer;
 * - card JSON 2.0 (`schema: "2.0"`) takes only 2.0 attributes: a form's submit button is
 *   `form_action_type: "submit"` with a `name`; the 1.0 spelling `action_type` is refused
 *   (feishu-cards card-json-v2-components, form container and button);
 * - the long connection is "cluster mode, no broadcast": with several clients of one app connected,
 *   each push goes to ONE of them at random (Lark SDK README, long-connection mode, points to note:
 *   "消息推送为集群模式，不支持广播…只有其中随机一个客户端会收到消息"; open platform "使用长连接接收
 *   事件"). The emulator picks with a seeded generator (`seed`), so a test sees the same spread each
 *   run; with one client it always gets the event;
 * - at most 50 long connections per app (open platform "使用长连接接收事件": 每个应用最多建立 50 个
 *   连接). The 51st WebSocket handshake is refused without an upgrade, carrying the headers the SDKs
 *   read: `Handshake-Status: 514` (auth failed) with `Handshake-Autherrcode: 1000040350` (exceed
 *   connection limit) (oapi-sdk-go `ws/client.go` `parseErr`, oapi-sdk-python `ws/client.py`
 *   `_parse_ws_conn_exception`; the Node SDK lists the code as `ErrorCode.exceed_conn_limit` and, seeing
 *   only a failed handshake, keeps retrying every `ReconnectInterval`);
 * - an event must be handled within 3 s: a push not acked with code 200 within 3 s — no ack, a late
 *   one, or the 500 the SDK sends when the handler threw (node-sdk `WSClient.handleEventData`) — is
 *   pushed again, to a random client again (Lark SDK README: "需要在 3 秒内处理完成，否则会触发超时
 *   重推"), with the same `event_id`. The waits before each re-push are Feishu's event retry schedule,
 *   15 s, 5 min, 1 h and 6 h, at most 4 retries (open platform event subscription overview, 推送周期
 *   和频次); tests shorten them with `redeliveryDelaysMs`. Card callbacks are not re-pushed: a late
 *   answer is an error the presser sees (above). Every push is recorded in `deliveries` (which client,
 *   which attempt, the ack and its outcome).
 */
import { createCipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";
import { type WebSocket, WebSocketServer } from "ws";
import { rng } from "../safety/trials.js";
import { multipartBoundary, parseFormData } from "./multipart.js";

/** One message the bot sent through the API. */
export interface LarkSend {
  kind: "create" | "reply" | "edit" | "patch";
  messageId: string;
  /** Chat the message went to (for replies: the chat of the replied-to message, when known). */
  chatId: string;
  receiveIdType?: string;
  /** For replies and edits: the message replied to / edited. */
  target?: string;
  replyInThread?: boolean;
  msgType: string;
  content: string;
  /**
   * Visible text: the `text` of a text message, the lines of a post (code blocks included), the
   * `file_key` of a file message.
   */
  text: string;
  /** Buttons of an interactive card: label and `value`. */
  buttons: { label: string; value: Record<string, unknown> }[];
  /** Users a text message mentions through `<at user_id="…">` (`all` for everyone). */
  mentions: string[];
  /** When the emulator took it (ms since epoch). */
  at: number;
  /** The message pings everyone in the chat (`<at user_id="all">` in a text message). */
  mentionsAll: boolean;
}

/** A file uploaded through `im/v1/files`. */
export interface LarkUpload {
  fileKey: string;
  fileType: string;
  fileName: string;
  /** The bytes as uploaded. */
  data: Buffer;
}

/** Updates one message takes per second (im-v1 message-card patch: 单条消息更新频控为5QPS). */
const CARD_UPDATES_PER_SECOND = 5;
/** A card callback not answered within this is a failure the user sees (handle card callbacks: 3 秒内). */
const CARD_CALLBACK_DEADLINE_MS = 3000;

/** Largest file `im/v1/files` takes: 30 MB (Feishu docs, im-v1 file create, 使用限制). */
export const LARK_FILE_LIMIT = 30 * 1024 * 1024;

/** The `file_type` values `im/v1/files` accepts (im-v1 file create, 请求体). */
const FILE_TYPES = new Set(["opus", "mp4", "pdf", "doc", "xls", "ppt", "stream"]);

/** What the long-connection client acked: its code and the handler's answer (decoded from `data`). */
export interface WsAck {
  code: number;
  data?: unknown;
}

/** Long connections one app may hold (使用长连接接收事件: 每个应用最多建立 50 个连接). */
export const LARK_MAX_WS_CONNECTIONS = 50;
/** An event not acked with 200 within this is pushed again (SDK README: 3 秒内处理完成，否则…超时重推). */
export const LARK_EVENT_ACK_DEADLINE_MS = 3000;
/** Feishu's waits before each re-push of an unanswered event: 15 s, 5 min, 1 h, 6 h (推送周期和频次). */
export const LARK_REDELIVERY_DELAYS_MS = [15_000, 300_000, 3_600_000, 21_600_000];
/** The handshake answer of a refused 51st connection: auth failed (514), exceed connection limit. */
const HANDSHAKE_AUTH_FAILED = 514;
const EXCEED_CONN_LIMIT = 1000040350;

/** One push of an event (or card callback) over the long connection, to one client. */
export interface LarkDelivery {
  /** The pushed event's `header.event_id` (the same on every re-push). */
  eventId: string;
  eventType: string;
  /** The frame's `message_id` header, which the client's ack repeats. */
  frameId: string;
  /** 1 for the first push, 2 for the first re-push, … */
  attempt: number;
  /** The connection it went to (`ws_1`, `ws_2`, … in the order the clients connected). */
  clientId: string;
  sentAt: number;
  /** What the client acked, when it did (also when too late). */
  ack?: WsAck;
  ackedAt?: number;
  /**
   * `acked`: code 200 within 3 s; `failed`: another code within 3 s; `timeout`: no ack within 3 s;
   * `pending`: still within the 3 s.
   */
  outcome: "pending" | "acked" | "failed" | "timeout";
}

/** A long-connection handshake the emulator refused (over `LARK_MAX_WS_CONNECTIONS`). */
export interface RefusedHandshake {
  at: number;
  /** Connections open at the time. */
  open: number;
}

/** Largest request body of a text message, and of a post (Feishu docs, im-v1 message create). */
export const LARK_TEXT_BODY_LIMIT = 150 * 1024;
export const LARK_POST_BODY_LIMIT = 30 * 1024;

/** One API call, as logged. */
export interface LarkCall {
  method: string;
  path: string;
  body: unknown;
  status: number;
}

/** Options of `messageEvent`. */
export interface MessageEventOptions {
  chatId?: string;
  chatType?: "p2p" | "group";
  senderOpenId?: string;
  text: string;
  /** Prefix the text with a mention of the bot (`@_user_1 `), or put it where `{bot}` appears in `text`. */
  mentionBot?: boolean;
  eventId?: string;
  messageId?: string;
  token?: string;
  threadId?: string;
}

const FRAME_SCHEMA = {
  nested: {
    pbbp2: {
      nested: {
        Header: {
          fields: {
            key: { rule: "required", type: "string", id: 1 },
            value: { rule: "required", type: "string", id: 2 },
          },
        },
        Frame: {
          fields: {
            SeqID: { rule: "required", type: "uint64", id: 1 },
            LogID: { rule: "required", type: "uint64", id: 2 },
            service: { rule: "required", type: "int32", id: 3 },
            method: { rule: "required", type: "int32", id: 4 },
            headers: { rule: "repeated", type: "Header", id: 5 },
            payloadEncoding: { type: "string", id: 6 },
            payloadType: { type: "string", id: 7 },
            payload: { type: "bytes", id: 8 },
            LogIDNew: { type: "string", id: 9 },
          },
        },
      },
    },
  },
};
const Frame = protobuf.Root.fromJSON(FRAME_SCHEMA).lookupType("pbbp2.Frame");

interface FrameObject {
  SeqID: number;
  LogID: number;
  service: number;
  method: number;
  headers: { key: string; value: string }[];
  payload?: Uint8Array;
}

const CLIENT_CONFIG = { PingInterval: 120, ReconnectCount: -1, ReconnectInterval: 120, ReconnectNonce: 30 };
const SERVICE_ID = 7;

/** The emulator. */
export class LarkEmulator {
  readonly appId: string;
  readonly appSecret: string;
  readonly botOpenId: string;
  readonly botName: string;
  readonly calls: LarkCall[] = [];
  readonly sends: LarkSend[] = [];
  /** Every ack the long-connection client sent back, by frame message id. */
  readonly wsAcks = new Map<string, WsAck>();
  /** Every push over the long connection, in order (see `LarkDelivery`). */
  readonly deliveries: LarkDelivery[] = [];
  /** Long-connection handshakes refused because the app already had 50 connections. */
  readonly refusedHandshakes: RefusedHandshake[] = [];
  /** Waits before each re-push of an unanswered event (ms); Feishu's schedule unless a test shortens it. */
  redeliveryDelaysMs: number[] = [...LARK_REDELIVERY_DELAYS_MS];
  /** Every file uploaded through `im/v1/files`, in order. */
  readonly uploads: LarkUpload[] = [];
  /** Largest file accepted (bytes); tests lower it to see an upload refused with 234006. */
  fileSizeLimit = LARK_FILE_LIMIT;
  /** How many tenant tokens were issued. */
  tokensIssued = 0;
  private baseUrl = "";
  /** Tenant tokens issued, with when each expires (ms since epoch). */
  private readonly tokens = new Map<string, number>();
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  /** Open long connections and their ids, in the order they connected. */
  private readonly sockets = new Map<WebSocket, string>();
  private connectionCounter = 0;
  /** The seeded generator that picks the client of each push. */
  private readonly random: () => number;
  /** Pending deadlines and re-pushes, cleared by `close`. */
  private readonly timers = new Set<NodeJS.Timeout>();
  /** What each push carried (by frame id), for its re-push. */
  private readonly payloads = new Map<string, Record<string, unknown>>();
  private postRejections = 0;
  private throttles: ("gateway" | "chat")[] = [];
  /** Seconds announced in `x-ogw-ratelimit-reset` when throttling. */
  throttleResetSeconds = 1;
  private readonly withdrawn = new Set<string>();
  private readonly messageChats = new Map<string, string>();
  private readonly waiters = new Set<() => void>();
  private messageCounter = 0;
  private frameCounter = 0;
  /** When each message was last updated through PATCH (the 5-per-second window). */
  private readonly patchTimes = new Map<string, number[]>();

  constructor(
    opts: { appId?: string; appSecret?: string; botOpenId?: string; botName?: string; seed?: number } = {},
  ) {
    this.random = rng(opts.seed ?? 1);
    this.appId = opts.appId ?? `cli_${randomBytes(8).toString("hex")}`;
    this.appSecret = opts.appSecret ?? `secret-${randomBytes(6).toString("hex")}`;
    this.botOpenId = opts.botOpenId ?? "ou_bot_0001";
    this.botName = opts.botName ?? "curator";
    this.server = createServer((req, res) => {
      this.route(req, res).catch((error: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: 1, msg: String(error) }));
      });
    });
    this.server.on("upgrade", (req, socket, head) => {
      if (!req.url?.startsWith("/ws")) {
        socket.destroy();
        return;
      }
      if (this.sockets.size >= LARK_MAX_WS_CONNECTIONS) {
        // The 51st connection: no upgrade; the SDKs read only the Handshake-* headers of the answer.
        this.refusedHandshakes.push({ at: Date.now(), open: this.sockets.size });
        socket.end(
          [
            "HTTP/1.1 403 Forbidden",
            `Handshake-Status: ${HANDSHAKE_AUTH_FAILED}`,
            `Handshake-Msg: the app already has ${LARK_MAX_WS_CONNECTIONS} long connections`,
            `Handshake-Autherrcode: ${EXCEED_CONN_LIMIT}`,
            "Content-Length: 0",
            "Connection: close",
            "",
            "",
          ].join("\r\n"),
        );
        this.notify();
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
    });
  }

  /** Starts listening; resolves with the base URL (use it as `gateway.feishu.domain`). */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    return this.baseUrl;
  }

  /** The base URL (after `listen`). */
  get url(): string {
    return this.baseUrl;
  }

  /** Stops the server and drops every long connection. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const socket of this.sockets.keys()) socket.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `count` post messages are refused like Feishu refuses malformed post content. */
  /**
   * The next `count` message sends are refused by frequency control: `gateway` answers HTTP 429 code
   * 99991400 with `x-ogw-ratelimit-reset`, `chat` answers 230020 (one chat over 5 messages a second).
   */
  throttleNext(count = 1, kind: "gateway" | "chat" = "gateway"): void {
    for (let index = 0; index < count; index += 1) this.throttles.push(kind);
  }

  rejectPosts(count = 1): void {
    this.postRejections += count;
  }

  /** Replies to `messageId` fail as if the user withdrew it (code 230011). */
  withdraw(messageId: string): void {
    this.withdrawn.add(messageId);
  }

  /** Number of open long connections. */
  get wsConnections(): number {
    return this.sockets.size;
  }

  /** Ids of the open long connections (`ws_1`, `ws_2`, …), in the order they connected. */
  get wsClientIds(): string[] {
    return [...this.sockets.values()];
  }

  // ---- events -------------------------------------------------------------------------------------

  /** A schema 2.0 `im.message.receive_v1` envelope with a text message. */
  messageEvent(opts: MessageEventOptions): Record<string, unknown> {
    const chatType = opts.chatType ?? "p2p";
    let text = opts.text;
    if (opts.mentionBot)
      text = text.includes("{bot}") ? text.replace("{bot}", "@_user_1") : `@_user_1 ${text}`;
    const message: Record<string, unknown> = {
      message_id: opts.messageId ?? `om_${randomUUID().replace(/-/g, "")}`,
      create_time: String(Date.now()),
      update_time: String(Date.now()),
      chat_id: opts.chatId ?? (chatType === "p2p" ? "oc_p2p_alice" : "oc_group_ops"),
      chat_type: chatType,
      message_type: "text",
      content: JSON.stringify({ text }),
    };
    if (opts.threadId) message.thread_id = opts.threadId;
    if (opts.mentionBot) {
      message.mentions = [
        {
          key: "@_user_1",
          id: { open_id: this.botOpenId, union_id: "on_bot", user_id: "" },
          name: this.botName,
          tenant_key: "tk",
        },
      ];
    }
    return this.envelope(opts, message);
  }

  /** A `post` (rich text) message event; `paragraphs` are arrays of post elements. */
  postEvent(
    opts: Omit<MessageEventOptions, "text"> & { title?: string; paragraphs: unknown[][] },
  ): Record<string, unknown> {
    const envelope = this.messageEvent({ ...opts, text: "" });
    const message = (envelope.event as { message: Record<string, unknown> }).message;
    message.message_type = "post";
    message.content = JSON.stringify({ title: opts.title ?? "", content: opts.paragraphs });
    return envelope;
  }

  private envelope(opts: MessageEventOptions, message: Record<string, unknown>): Record<string, unknown> {
    const senderOpenId = opts.senderOpenId ?? "ou_alice";
    this.messageChats.set(String(message.message_id), String(message.chat_id));
    return {
      schema: "2.0",
      header: {
        event_id: opts.eventId ?? randomUUID().replace(/-/g, ""),
        event_type: "im.message.receive_v1",
        create_time: String(Date.now()),
        token: opts.token ?? "",
        app_id: this.appId,
        tenant_key: "tk",
      },
      event: {
        sender: {
          sender_id: {
            open_id: senderOpenId,
            union_id: `on_${senderOpenId.slice(3)}`,
            user_id: senderOpenId.slice(3),
          },
          sender_type: "user",
          tenant_key: "tk",
        },
        message,
      },
    };
  }

  /**
   * POSTs an event to a webhook URL as compact JSON; with `encryptKey` it is encrypted and signed like
   * Feishu does. `badSignature` corrupts the signature. Resolves with the HTTP status and body.
   */
  async deliverWebhook(
    url: string,
    payload: Record<string, unknown>,
    opts: { encryptKey?: string; badSignature?: boolean } = {},
  ): Promise<{ status: number; body: string }> {
    const body = opts.encryptKey
      ? JSON.stringify({ encrypt: encryptPayload(JSON.stringify(payload), opts.encryptKey) })
      : JSON.stringify(payload);
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    if (opts.encryptKey) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(8).toString("hex");
      const signature = createHash("sha256")
        .update(timestamp + nonce + opts.encryptKey + body)
        .digest("hex");
      headers["x-lark-request-timestamp"] = timestamp;
      headers["x-lark-request-nonce"] = nonce;
      headers["x-lark-signature"] = opts.badSignature
        ? signature.replace(/^./, (c) => (c === "0" ? "1" : "0"))
        : signature;
    }
    const response = await fetch(url, { method: "POST", headers, body });
    return { status: response.status, body: await response.text() };
  }

  /**
   * A person fills the form of a card the bot sent and presses its submit button: the emulator finds
   * the form in the sent card, fills its inputs with `values` (only inputs that exist there), and pushes
   * the `card.action.trigger` callback over the long connection. Resolves with the bot's answer (toast
   * and card). The values exist only in this callback, never in a message.
   */
  async submitCardForm(opts: {
    messageId: string;
    operatorOpenId: string;
    values: Record<string, string>;
  }): Promise<{ code: number; answer: Record<string, unknown> }> {
    const send = this.sends.find((candidate) => candidate.messageId === opts.messageId);
    if (send?.msgType !== "interactive") throw new Error(`no card message ${opts.messageId}`);
    const card = JSON.parse(send.content) as { body?: { elements?: Record<string, unknown>[] } };
    const form = (card.body?.elements ?? []).find((element) => element.tag === "form");
    const fields = (form?.elements as Record<string, unknown>[] | undefined) ?? [];
    const submit = fields.find(
      (element) => element.tag === "button" && element.form_action_type === "submit",
    );
    if (!form || !submit) throw new Error("the card has no form with a submit button");
    const formValue: Record<string, string> = {};
    for (const input of fields.filter((element) => element.tag === "input")) {
      const name = String(input.name);
      if (opts.values[name] !== undefined) formValue[name] = opts.values[name];
    }
    const behavior = ((submit.behaviors as { type: string; value?: unknown }[] | undefined) ?? []).find(
      (item) => item.type === "callback",
    );
    const payload = {
      schema: "2.0",
      header: {
        event_id: randomUUID().replace(/-/g, ""),
        event_type: "card.action.trigger",
        create_time: String(Date.now() * 1000),
        token: "",
        app_id: this.appId,
        tenant_key: "tk",
      },
      event: {
        operator: {
          tenant_key: "tk",
          open_id: opts.operatorOpenId,
          union_id: `on_${opts.operatorOpenId.slice(3)}`,
        },
        token: `c-${randomBytes(8).toString("hex")}`,
        action: { tag: "button", name: submit.name, value: behavior?.value ?? {}, form_value: formValue },
        host: "im_message",
        context: { open_message_id: opts.messageId, open_chat_id: send.chatId },
      },
    };
    const ack = await this.pushWsEvent(payload);
    const answer = (ack.data as Record<string, unknown> | undefined) ?? {};
    return { code: ack.code, answer };
  }

  /** Sends Feishu's `url_verification` challenge to a webhook URL (encrypted when `encryptKey` is given). */
  async urlVerification(
    url: string,
    opts: { token: string; challenge?: string; encryptKey?: string },
  ): Promise<{ status: number; body: string }> {
    const challenge = {
      challenge: opts.challenge ?? randomUUID(),
      token: opts.token,
      type: "url_verification",
    };
    return this.deliverWebhook(url, challenge, { encryptKey: opts.encryptKey });
  }

  /**
   * Pushes an event over the long connection to one client picked at random (the only one, when one is
   * connected) and resolves with that client's ack payload (`{code: 200}` when handled). An event not
   * acked with 200 within 3 s is pushed again in the background (see the rules above).
   */
  async pushWsEvent(payload: Record<string, unknown>, timeoutMs = 5000): Promise<WsAck> {
    const delivery = this.publishWsEvent(payload);
    await this.waitUntil(() => delivery.ack !== undefined, timeoutMs, `ack of ${delivery.frameId}`);
    const elapsed = (delivery.ackedAt ?? Date.now()) - delivery.sentAt;
    if (delivery.eventType === "card.action.trigger" && elapsed > CARD_CALLBACK_DEADLINE_MS) {
      throw new Error(
        `LarkEmulator: the card callback was answered after ${elapsed} ms; Feishu shows the user an error after 3 s`,
      );
    }
    return delivery.ack!;
  }

  /**
   * Pushes an event over the long connection like `pushWsEvent`, without waiting for the ack; returns
   * the first push's record (it fills in as the client answers).
   */
  publishWsEvent(payload: Record<string, unknown>): LarkDelivery {
    const delivery = this.push(payload, 1);
    if (!delivery) throw new Error("no long-connection client is connected to the Lark emulator");
    return delivery;
  }

  /** The pushes of the event `eventId` so far, in order. */
  deliveriesOf(eventId: string): LarkDelivery[] {
    return this.deliveries.filter((delivery) => delivery.eventId === eventId);
  }

  /** Resolves with the push of `eventId` a client acked with 200 in time (after any re-pushes). */
  async waitForAcked(eventId: string, timeoutMs = 5000): Promise<LarkDelivery> {
    const acked = () => this.deliveriesOf(eventId).find((delivery) => delivery.outcome === "acked");
    await this.waitUntil(() => acked() !== undefined, timeoutMs, `an ack of event ${eventId}`);
    return acked()!;
  }

  /** Sends one push of `payload` to a random open client; undefined when none is connected. */
  private push(payload: Record<string, unknown>, attempt: number): LarkDelivery | undefined {
    const open = [...this.sockets].filter(([socket]) => socket.readyState === socket.OPEN);
    const picked = open[Math.floor(this.random() * open.length)];
    if (!picked) return undefined;
    const [socket, clientId] = picked;
    this.frameCounter += 1;
    const frameId = `ws_msg_${this.frameCounter}`;
    const header = payload.header as { event_id?: unknown; event_type?: unknown } | undefined;
    const delivery: LarkDelivery = {
      eventId: String(header?.event_id ?? ""),
      eventType: String(header?.event_type ?? ""),
      frameId,
      attempt,
      clientId,
      sentAt: Date.now(),
      outcome: "pending",
    };
    this.deliveries.push(delivery);
    this.payloads.set(frameId, payload);
    const frame = Frame.create({
      SeqID: this.frameCounter,
      LogID: this.frameCounter,
      service: SERVICE_ID,
      method: 1,
      headers: [
        { key: "type", value: "event" },
        { key: "message_id", value: frameId },
        { key: "sum", value: "1" },
        { key: "seq", value: "0" },
        { key: "trace_id", value: `trace_${this.frameCounter}` },
      ],
      payload: Buffer.from(JSON.stringify(payload), "utf8"),
    });
    socket.send(Frame.encode(frame).finish());
    this.later(LARK_EVENT_ACK_DEADLINE_MS, () => {
      if (delivery.outcome !== "pending") return;
      delivery.outcome = "timeout";
      this.notify();
      this.redeliver(delivery);
    });
    return delivery;
  }

  /** Records a client's ack of the push `frameId`; a failure within the deadline is re-pushed at once. */
  private onAck(frameId: string, ack: WsAck): void {
    this.wsAcks.set(frameId, ack);
    const delivery = this.deliveries.find((candidate) => candidate.frameId === frameId);
    if (delivery && delivery.ack === undefined) {
      delivery.ack = ack;
      delivery.ackedAt = Date.now();
      if (delivery.outcome === "pending") {
        delivery.outcome = ack.code === 200 ? "acked" : "failed";
        if (delivery.outcome === "failed") this.redeliver(delivery);
      }
    }
    this.notify();
  }

  /** Schedules the next push of an event whose push `failed` was not answered, per the retry schedule. */
  private redeliver(failed: Pick<LarkDelivery, "eventType" | "frameId" | "attempt">): void {
    // Card callbacks are answered or failed in front of the presser; only events are pushed again.
    if (failed.eventType === "card.action.trigger") return;
    const payload = this.payloads.get(failed.frameId);
    const delay = this.redeliveryDelaysMs[failed.attempt - 1];
    if (!payload || delay === undefined) return;
    this.later(delay, () => {
      const next = this.push(payload, failed.attempt + 1);
      // Nobody connected: that retry is spent too, as a push to an unreachable endpoint would be.
      if (!next) this.redeliver({ ...failed, attempt: failed.attempt + 1 });
    });
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  /** Resolves once at least one long-connection client is connected. */
  async waitForWsClient(timeoutMs = 5000): Promise<void> {
    await this.waitUntil(() => this.sockets.size > 0, timeoutMs, "a long-connection client");
  }

  /** Resolves with the first recorded send (past or future) matching `predicate`. */
  async waitForSend(predicate: (send: LarkSend) => boolean, timeoutMs = 5000): Promise<LarkSend> {
    await this.waitUntil(() => this.sends.some(predicate), timeoutMs, "a matching send");
    return this.sends.find(predicate)!;
  }

  /** Resolves with all sends matching `predicate` once there are at least `count`. */
  async waitForSends(
    count: number,
    predicate: (send: LarkSend) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<LarkSend[]> {
    await this.waitUntil(
      () => this.sends.filter(predicate).length >= count,
      timeoutMs,
      `${count} matching sends`,
    );
    return this.sends.filter(predicate);
  }

  private waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `Lark emulator: timed out after ${timeoutMs} ms waiting for ${what}; sends so far: ${JSON.stringify(this.sends.map((s) => s.text.slice(0, 80)))}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  // ---- HTTP API -----------------------------------------------------------------------------------

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.baseUrl || "http://127.0.0.1");
    const bytes = await readAll(req);
    const boundary = multipartBoundary(req);
    const raw = boundary ? "" : bytes.toString("utf8");
    const body: unknown = raw.length > 0 ? safeJson(raw) : undefined;
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      this.calls.push({ method: req.method ?? "?", path: url.pathname, body, status });
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
      this.notify();
    };
    const path = url.pathname;
    if (req.method === "POST" && path === "/open-apis/auth/v3/tenant_access_token/internal") {
      const { app_id, app_secret } = (body ?? {}) as { app_id?: string; app_secret?: string };
      if (app_id !== this.appId || app_secret !== this.appSecret)
        return reply(200, { code: 10014, msg: "app secret invalid" });
      // A tenant token lives 2 h. Asked again while 30 min or more of it are left, Feishu returns the
      // same token with what is left; below that a new one, the old one valid until it expires, so two
      // are valid at once (open.feishu.cn/document/server-docs/authentication-management/access-token/
      // tenant_access_token_internal). The replicas of one app, each asking, all hold a valid token.
      const now = Date.now();
      const current = [...this.tokens].find(([, expires]) => expires - now > 30 * 60_000);
      if (current)
        return reply(200, {
          code: 0,
          msg: "ok",
          tenant_access_token: current[0],
          expire: Math.floor((current[1] - now) / 1000),
        });
      const token = `t-${randomBytes(12).toString("hex")}`;
      this.tokens.set(token, now + 7_200_000);
      this.tokensIssued += 1;
      return reply(200, { code: 0, msg: "ok", tenant_access_token: token, expire: 7200 });
    }
    if (req.method === "POST" && path === "/callback/ws/endpoint") {
      const { AppID, AppSecret } = (body ?? {}) as { AppID?: string; AppSecret?: string };
      if (AppID !== this.appId || AppSecret !== this.appSecret)
        return reply(200, { code: 1000040343, msg: "invalid app credentials", data: {} });
      const wsUrl = `${this.baseUrl.replace(/^http/, "ws")}/ws?device_id=d1&service_id=${SERVICE_ID}`;
      return reply(200, { code: 0, msg: "ok", data: { URL: wsUrl, ClientConfig: CLIENT_CONFIG } });
    }
    if (!path.startsWith("/open-apis/")) return reply(404, { code: 404, msg: "not found" });
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    if ((this.tokens.get(bearer) ?? 0) < Date.now()) {
      return reply(401, {
        code: 99991663,
        msg: "Invalid access token for authorization. Please make a request with token attached.",
      });
    }
    if (req.method === "GET" && path === "/open-apis/bot/v3/info") {
      return reply(200, {
        code: 0,
        msg: "ok",
        bot: {
          activate_status: 2,
          app_name: this.botName,
          avatar_url: "",
          ip_white_list: [],
          open_id: this.botOpenId,
        },
      });
    }
    if (req.method === "POST" && path === "/open-apis/im/v1/files") {
      const parts = boundary ? parseFormData(bytes, boundary) : [];
      const field = (name: string) => parts.find((part) => part.name === name);
      const fileType = field("file_type")?.data.toString("utf8") ?? "";
      const fileName = field("file_name")?.data.toString("utf8") ?? "";
      const file = field("file");
      if (!FILE_TYPES.has(fileType) || fileName === "" || !file)
        return reply(400, { code: 234001, msg: "Invalid request param." });
      if (file.data.length === 0) return reply(400, { code: 234010, msg: "File's size can't be 0." });
      if (file.data.length > this.fileSizeLimit)
        return reply(400, { code: 234006, msg: "The file size exceed the max value." });
      const fileKey = `file_v3_${randomUUID().replace(/-/g, "")}`;
      this.uploads.push({ fileKey, fileType, fileName, data: file.data });
      return reply(200, { code: 0, msg: "success", data: { file_key: fileKey } });
    }
    const data = (body ?? {}) as {
      receive_id?: string;
      msg_type?: string;
      content?: string;
      reply_in_thread?: boolean;
    };
    const sending = req.method === "POST" && /^\/open-apis\/im\/v1\/messages(\/[^/]+\/reply)?$/.test(path);
    if (sending && this.throttles.length > 0) {
      const kind = this.throttles.shift();
      if (kind === "gateway")
        return reply(
          429,
          { code: 99991400, msg: "request trigger frequency limit" },
          { "x-ogw-ratelimit-limit": "50", "x-ogw-ratelimit-reset": String(this.throttleResetSeconds) },
        );
      return reply(400, { code: 230020, msg: "This message is triggering the frequency limit." });
    }
    if (sending && data.msg_type !== undefined) {
      const limit = data.msg_type === "text" ? LARK_TEXT_BODY_LIMIT : LARK_POST_BODY_LIMIT;
      if (Buffer.byteLength(raw, "utf8") > limit)
        return reply(400, { code: 230025, msg: "The length of the message content reaches its limit." });
    }
    if (req.method === "POST" && path === "/open-apis/im/v1/messages") {
      return this.recordSend(
        reply,
        {
          kind: "create",
          chatId: data.receive_id ?? "",
          receiveIdType: url.searchParams.get("receive_id_type") ?? undefined,
        },
        data,
      );
    }
    const replyMatch = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(path);
    if (req.method === "POST" && replyMatch) {
      const target = decodeURIComponent(replyMatch[1] ?? "");
      if (this.withdrawn.has(target)) return reply(400, { code: 230011, msg: "The message was withdrawn." });
      const chatId = this.messageChats.get(target) ?? "";
      return this.recordSend(
        reply,
        { kind: "reply", chatId, target, replyInThread: data.reply_in_thread },
        data,
      );
    }
    const editMatch = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(path);
    if (req.method === "PATCH" && editMatch) {
      // IM API "update a message card sent by the app": only the app's own interactive messages, both
      // the old and the new card declaring `config.update_multi: true`, a body of at most 30 KB.
      const target = decodeURIComponent(editMatch[1] ?? "");
      const original = [...this.sends].reverse().find((send) => send.messageId === target);
      if (!original)
        return reply(400, { code: 230002, msg: "The message does not exist or was not sent by the bot." });
      if (this.withdrawn.has(target)) return reply(400, { code: 230011, msg: "The message was withdrawn." });
      if (
        original.msgType !== "interactive" ||
        !isSharedCard(original.content) ||
        !isSharedCard(data.content ?? "")
      ) {
        return reply(400, {
          code: 230001,
          msg: "only shared cards (config.update_multi: true) can be updated",
        });
      }
      // The limit is on the request body, where `content` is escaped once more.
      if (Buffer.byteLength(raw, "utf8") > LARK_POST_BODY_LIMIT)
        return reply(400, { code: 230025, msg: "The length of the message content reaches its limit." });
      const now = Date.now();
      const recent = (this.patchTimes.get(target) ?? []).filter((at) => now - at < 1000);
      if (recent.length >= CARD_UPDATES_PER_SECOND)
        return reply(400, { code: 230020, msg: "This message is triggering the frequency limit." });
      this.patchTimes.set(target, [...recent, now]);
      return this.recordSend(
        reply,
        { kind: "patch", chatId: this.messageChats.get(target) ?? "", target },
        { msg_type: "interactive", content: data.content },
      );
    }
    if (req.method === "PUT" && editMatch) {
      const target = decodeURIComponent(editMatch[1] ?? "");
      return this.recordSend(
        reply,
        { kind: "edit", chatId: this.messageChats.get(target) ?? "", target },
        data,
      );
    }
    return reply(404, { code: 404, msg: `no route ${req.method} ${path}` });
  }

  private recordSend(
    reply: (status: number, payload: unknown, headers?: Record<string, string>) => void,
    base: Pick<LarkSend, "kind" | "chatId" | "receiveIdType" | "target" | "replyInThread">,
    data: { msg_type?: string; content?: string },
  ): void {
    const msgType = data.msg_type ?? "";
    const content = data.content ?? "";
    if (msgType === "post" && this.postRejections > 0) {
      this.postRejections -= 1;
      reply(400, {
        code: 230001,
        msg: "Your request contains an invalid request parameter, ext=invalid message content: content format of the post type is incorrect",
      });
      return;
    }
    let text: string;
    try {
      text = contentText(msgType, content);
    } catch {
      reply(400, { code: 230001, msg: "invalid message content: content is not JSON" });
      return;
    }
    if (!["text", "post", "interactive", "file"].includes(msgType)) {
      reply(400, { code: 230001, msg: `unsupported msg_type ${msgType}` });
      return;
    }
    if (msgType === "file" && !this.uploads.some((upload) => upload.fileKey === text)) {
      reply(400, { code: 230001, msg: "invalid message content: the file_key is not an uploaded file" });
      return;
    }
    if (msgType === "interactive") {
      const problem = cardProblem(content);
      if (problem) {
        reply(400, { code: 230099, msg: `Failed to create card content, ext=${problem}` });
        return;
      }
    }
    this.messageCounter += 1;
    const messageId =
      (base.kind === "edit" || base.kind === "patch") && base.target
        ? base.target
        : `om_sent_${this.messageCounter}`;
    this.messageChats.set(messageId, base.chatId);
    const mentions = msgType === "text" ? textMentions(text) : [];
    this.sends.push({
      ...base,
      messageId,
      msgType,
      content,
      text: msgType === "text" ? renderAt(text) : text,
      buttons: cardButtons(msgType, content),
      mentions,
      mentionsAll: mentions.includes("all"),
      at: Date.now(),
    });
    reply(200, {
      code: 0,
      msg: "success",
      data: {
        message_id: messageId,
        chat_id: base.chatId,
        msg_type: msgType,
        body: { content },
        sender: { id: this.appId, id_type: "app_id", sender_type: "app" },
        create_time: String(Date.now()),
      },
    });
  }

  /**
   * The `card.action.trigger` callback of a press on a card the bot sent (2.0 envelope, as the SDK's
   * `normalizeCardAction` reads it: `operator`, `action.value`, `context.open_message_id` and
   * `open_chat_id`). `value` defaults to the value of the button labelled `label`; pass one to forge.
   */
  cardActionEvent(opts: {
    messageId: string;
    label?: string;
    value?: Record<string, unknown>;
    operatorOpenId?: string;
    token?: string;
    eventId?: string;
  }): Record<string, unknown> {
    const card = [...this.sends].reverse().find((send) => send.messageId === opts.messageId);
    if (!card) throw new Error(`LarkEmulator: no message ${opts.messageId}`);
    const value = opts.value ?? card.buttons.find((button) => button.label === opts.label)?.value;
    if (!value) throw new Error(`LarkEmulator: message ${opts.messageId} has no button ${opts.label ?? "?"}`);
    const operator = opts.operatorOpenId ?? "ou_alice";
    return {
      schema: "2.0",
      header: this.eventHeader("card.action.trigger", opts, String(Date.now() * 1000)),
      event: {
        operator: {
          tenant_key: "tk",
          user_id: operator.replace(/^ou_/, ""),
          open_id: operator,
          union_id: `on_${operator}`,
        },
        token: `c-${randomBytes(8).toString("hex")}`,
        action: { value, tag: "button" },
        host: "im_message",
        context: { open_message_id: opts.messageId, open_chat_id: card.chatId },
      },
    };
  }

  /**
   * A bot menu click: a schema 2.0 `application.bot.menu_v6` envelope whose event carries the clicking
   * user (`operator.operator_id`), the entry's `event_key` and a `timestamp`, and no chat (Feishu open
   * platform, 机器人自定义菜单 → 事件「机器人自定义菜单」; the fields as typed by the Lark SDK's
   * `EventHandles["application.bot.menu_v6"]`). The menu itself is set up in the developer console, so
   * any key can arrive; one skillgate does not know must be ignored.
   */
  menuEvent(opts: {
    eventKey: string;
    operatorOpenId?: string;
    token?: string;
    eventId?: string;
  }): Record<string, unknown> {
    const operator = opts.operatorOpenId ?? "ou_alice";
    return {
      schema: "2.0",
      header: this.eventHeader("application.bot.menu_v6", opts, String(Date.now())),
      event: {
        operator: {
          operator_name: "Alice",
          operator_id: {
            union_id: `on_${operator.slice(3)}`,
            user_id: operator.slice(3),
            open_id: operator,
          },
        },
        event_key: opts.eventKey,
        timestamp: Date.now(),
      },
    };
  }

  /** The schema 2.0 header of an event of `eventType` to this app. */
  private eventHeader(
    eventType: string,
    opts: { token?: string; eventId?: string },
    createTime: string,
  ): Record<string, unknown> {
    return {
      event_id: opts.eventId ?? randomUUID(),
      token: opts.token ?? "",
      create_time: createTime,
      event_type: eventType,
      tenant_key: "tk",
      app_id: this.appId,
    };
  }

  /** Registers the chat of an inbound message so replies to it are attributed to that chat. */
  rememberMessage(envelope: Record<string, unknown>): void {
    const message = (envelope.event as { message?: { message_id?: string; chat_id?: string } } | undefined)
      ?.message;
    if (message?.message_id && message.chat_id) this.messageChats.set(message.message_id, message.chat_id);
  }

  // ---- long connection ----------------------------------------------------------------------------

  private onSocket(ws: WebSocket): void {
    this.connectionCounter += 1;
    this.sockets.set(ws, `ws_${this.connectionCounter}`);
    this.notify();
    ws.on("close", () => {
      this.sockets.delete(ws);
      this.notify();
    });
    ws.on("error", () => ws.terminate());
    ws.on("message", (data: Buffer) => {
      const frame = Frame.toObject(Frame.decode(data), { longs: Number, bytes: Buffer }) as FrameObject;
      const type = frame.headers?.find((h) => h.key === "type")?.value;
      if (frame.method === 0 && type === "ping") {
        const pong = Frame.create({
          SeqID: 0,
          LogID: 0,
          service: SERVICE_ID,
          method: 0,
          headers: [{ key: "type", value: "pong" }],
          payload: Buffer.from(JSON.stringify(CLIENT_CONFIG)),
        });
        ws.send(Frame.encode(pong).finish());
        return;
      }
      if (frame.method === 1) {
        const messageId = frame.headers.find((h) => h.key === "message_id")?.value ?? "";
        const ack = JSON.parse(Buffer.from(frame.payload ?? []).toString("utf8")) as {
          code: number;
          data?: string;
        };
        // The SDK puts the handler's return value, JSON then base64, in `data` (a card callback's answer).
        const data = ack.data
          ? (JSON.parse(Buffer.from(ack.data, "base64").toString("utf8")) as unknown)
          : undefined;
        this.onAck(messageId, { code: ack.code, ...(data !== undefined ? { data } : {}) });
      }
    });
  }
}

/** Feishu's event encryption: base64(iv || AES-256-CBC(key = sha256(encryptKey), PKCS7)(json)). */
export function encryptPayload(json: string, encryptKey: string): string {
  const key = createHash("sha256").update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  return Buffer.concat([iv, cipher.update(json, "utf8"), cipher.final()]).toString("base64");
}

/**
 * Card JSON 2.0 rules the emulator enforces (1.0 cards, the buttons' format, only for size) (open.feishu.cn card docs: "Form container", "Input",
 * "Button" of card-json-v2-components, card size limit): content at most 30 KB; `schema: "2.0"` with
 * `body.elements`; no 1.0-only attribute anywhere (`action_type` is refused, 2.0 rejects unknown
 * attributes); a form has a `name`, the inputs inside it each a unique `name` and `max_length` ≤ 1000,
 * and it holds a button with a `name` and `form_action_type: "submit"`.
 */
export function cardProblem(content: string): string | null {
  if (Buffer.byteLength(content) > 30 * 1024) return "card content exceeds 30KB";
  const card = JSON.parse(content) as { schema?: string; body?: { elements?: Record<string, unknown>[] } };
  if (card.schema === undefined) return null;
  if (card.schema !== "2.0" || !Array.isArray(card.body?.elements))
    return "expected a JSON 2.0 card with body.elements";
  const oneZero = findAttribute(card.body.elements, "action_type");
  if (oneZero) return `unknown attribute action_type in a JSON 2.0 card (${oneZero})`;
  for (const element of card.body.elements) {
    if (element.tag !== "form") continue;
    if (typeof element.name !== "string" || element.name === "") return "form container needs a name";
    const inner = (element.elements as Record<string, unknown>[] | undefined) ?? [];
    const names = new Set<string>();
    for (const input of inner.filter((item) => item.tag === "input")) {
      if (typeof input.name !== "string" || input.name === "" || names.has(input.name))
        return "every input in a form needs a unique name";
      names.add(input.name);
      if (typeof input.max_length === "number" && input.max_length > 1000)
        return "input max_length is at most 1000";
    }
    const submit = inner.find((item) => item.tag === "button" && item.form_action_type === "submit");
    if (!submit) return 'a form needs a submit button (form_action_type: "submit")';
    if (typeof submit.name !== "string" || submit.name === "") return "the form's submit button needs a name";
  }
  return null;
}

/** The tag of the first element (at any depth) carrying `attribute`, or null. */
function findAttribute(elements: unknown, attribute: string): string | null {
  if (Array.isArray(elements)) {
    for (const item of elements) {
      const found = findAttribute(item, attribute);
      if (found) return found;
    }
    return null;
  }
  if (elements === null || typeof elements !== "object") return null;
  const record = elements as Record<string, unknown>;
  if (Object.hasOwn(record, attribute)) return String(record.tag ?? "element");
  for (const value of Object.values(record)) {
    const found = findAttribute(value, attribute);
    if (found) return found;
  }
  return null;
}

function isSharedCard(content: string): boolean {
  const card = safeJson(content) as { config?: { update_multi?: unknown } } | undefined;
  return card?.config?.update_multi === true;
}

/** The buttons of an interactive card (card JSON 1.0 `action` elements). */
function cardButtons(msgType: string, content: string): LarkSend["buttons"] {
  if (msgType !== "interactive") return [];
  const card = JSON.parse(content) as { elements?: { tag?: string; actions?: Record<string, unknown>[] }[] };
  return (card.elements ?? [])
    .filter((element) => element.tag === "action")
    .flatMap((element) => element.actions ?? [])
    .map((button) => ({
      label: String((button.text as { content?: unknown } | undefined)?.content ?? ""),
      value: (button.value as Record<string, unknown> | undefined) ?? {},
    }));
}

/** Visible text of a message `content` for its `msg_type`. */
export function contentText(msgType: string, content: string): string {
  const parsed = JSON.parse(content) as Record<string, unknown>;
  if (msgType === "text") return String(parsed.text ?? "");
  if (msgType === "file") return String(parsed.file_key ?? "");
  if (msgType === "interactive") {
    const card = parsed as {
      header?: { title?: { content?: string } };
      elements?: { tag?: string; text?: { content?: string } }[];
      body?: { elements?: { tag?: string; content?: string }[] };
    };
    // JSON 1.0 cards (buttons) keep text in `div`s; JSON 2.0 cards (forms) in `markdown` body elements.
    const parts = [
      ...(card.elements ?? [])
        .filter((element) => element.tag === "div")
        .map((element) => element.text?.content ?? ""),
      ...(card.body?.elements ?? [])
        .filter((element) => element.tag === "markdown")
        .map((element) => element.content ?? ""),
    ];
    return [card.header?.title?.content, ...parts]
      .filter((part) => part !== undefined && part !== "")
      .join("\n");
  }
  const body = (Array.isArray(parsed.content) ? parsed : Object.values(parsed)[0]) as
    | { content?: { text?: string }[][] }
    | undefined;
  return (body?.content ?? [])
    .map((paragraph) => paragraph.map((element) => element.text ?? "").join(""))
    .join("\n");
}

/** `<at user_id="ID">` tags of a text message: ids of the people it mentions (`all` = everyone). */
function textMentions(text: string): string[] {
  return [...text.matchAll(/<at\s+user_id\s*=\s*"([^"]*)"\s*>/g)].map((match) => match[1] as string);
}

/** A text message as Feishu shows it: each `<at user_id="…">Name</at>` becomes `@Name` (or `@all`). */
function renderAt(text: string): string {
  return text.replace(
    /<at\s+user_id\s*=\s*"([^"]*)"\s*>([^<]*)<\/at>/g,
    (_match, id: string, name: string) => (id === "all" ? "@all" : `@${name || id}`),
  );
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
