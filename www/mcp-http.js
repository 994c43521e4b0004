// A small MCP client over Streamable HTTP, written on `fetch`, whose cancellation bookkeeping
// is mcp-cancel's: every request goes through `session.track()`, every message that arrives
// through `session.shouldDropIncoming()` (true = a late message, dropped), and the session decides
// how a cancel goes out — a POSTed `notifications/cancelled` (2024-11-05 … 2025-11-25), or
// closing the request's response stream (2026-07-28).
//
// It speaks both eras: it probes with `server/discover` (2026-07-28) and falls back to the
// `initialize` handshake when the server does not answer it.

import { CancellationSession } from "mcp-cancel";

import { createSseParser } from "./sse.js";

/** The revision probed with `server/discover`. */
export const MODERN_VERSION = "2026-07-28";
/** The newest revision asked for with `initialize`. */
export const LEGACY_VERSION = "2025-11-25";
/** Streams open at once (running calls plus cancelled ones still read for late messages). A browser opens at most 6 HTTP/1.1 connections to a server, and a cancel needs one of them. */
export const MAX_STREAMS = 4;
/** How long the stream of a cancelled call is still read, to drop (and count) late messages, before it is closed. */
export const LINGER_MS = 10_000;

const CLIENT_INFO = { name: "mcp-cancel-www", title: "mcp-cancel browser demo", version: "0.1.0" };
const META = "io.modelcontextprotocol/";
/** 2026-07-28: the requests whose `Mcp-Name` header mirrors a `params` field. */
const NAME_HEADER_FIELD = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri", "tasks/get": "taskId", "tasks/cancel": "taskId" };

/** The server could not be reached: refused, down, a wrong address, or CORS refused this origin (the browser does not say which). */
export class NetworkError extends Error {
  constructor(url, cause) {
    super(
      `Could not reach ${url}. The server may be down or the address wrong, or it refused this page's origin (CORS); ` +
        "the browser does not tell a page which.",
      { cause },
    );
    this.name = "NetworkError";
  }
}

/** The server answered with an HTTP error (or with something that is not MCP). */
export class HttpError extends Error {
  constructor(status, statusText, body, url) {
    const text = body.trim().slice(0, 300);
    super(`HTTP ${status}${statusText ? ` ${statusText}` : ""} from ${url}${text ? `: ${text}` : ""}`);
    this.name = "HttpError";
    this.status = status;
  }
}

/** A JSON-RPC error response. */
export class RpcError extends Error {
  constructor({ code, message, data }) {
    super(`${message} (JSON-RPC error ${code})`);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/**
 * One MCP connection. Events (`addEventListener`):
 * - `cancellation`: every mcp-cancel event, as the session's `onEvent` reports it (`detail`);
 * - `cancel-delivered`: `{ requestId, via, status? }` — the server took the notification
 *   (HTTP `status`), or the stream was closed (`via: "stream-close"`);
 * - `cancel-failed`: `{ requestId, error }` — the cancel could not be delivered;
 * - `dropped`: `{ requestId?, kind: "progress" | "response", message }` — mcp-cancel dropped it;
 * - `notification`: a server notification not tied to a call (`detail` is the message);
 * - `problem`: an error outside any call (`detail` is the Error).
 */
export class McpHttpClient extends EventTarget {
  /** @type {string} */ url;
  /** The negotiated protocol version, the server's info and instructions (after `connect()`). */
  protocolVersion;
  serverInfo;
  instructions;

  #session;
  #era = "modern"; // "modern" while probing and after, "legacy" after falling back to initialize
  #sessionId;
  #nextId = 0;
  /** Our requests by id: { id, method, progressToken, stream, resolve, reject, onProgress, onMessage, settled, cancelled, closedByCancel, open, linger }. */
  #calls = new Map();
  /** Progress tokens to request ids, kept after a cancel so late progress can be told apart. */
  #byToken = new Map();

  constructor(url) {
    super();
    this.url = new URL(url).href;
  }

  /** The session's revision (whose cancel rules apply), once known. */
  get revision() {
    return this.#session?.revision;
  }

  /** Response streams open now (running calls and cancelled ones still read). */
  get openStreams() {
    let n = 0;
    for (const call of this.#calls.values()) if (call.open) n++;
    return n;
  }

  /** Negotiates the protocol: `server/discover` (2026-07-28), else `initialize`. */
  async connect() {
    this.#session = new CancellationSession({
      transport: "streamable-http",
      send: (message) => this.#sendCancel(message),
      closeStream: (id) => this.#closeStream(id),
      onEvent: (event) => this.#emit("cancellation", event),
    });
    if (await this.#discover()) return;
    this.#era = "legacy";
    const result = await this.request("initialize", {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    }).response;
    // The session learned the revision from this result (shouldDropIncoming()); the headers need it too.
    this.protocolVersion = result.protocolVersion;
    this.serverInfo = result.serverInfo;
    this.instructions = result.instructions;
    await this.#notify("notifications/initialized");
  }

  /** All the server's tools (following `nextCursor`). */
  async listTools() {
    const tools = [];
    let cursor;
    do {
      const result = await this.request("tools/list", cursor === undefined ? {} : { cursor }).response;
      tools.push(...(result.tools ?? []));
      cursor = result.nextCursor;
    } while (cursor);
    return tools;
  }

  /**
   * Sends a request. Returns at once with its id, its progress token (when `onProgress` is
   * given) and the promise of its result. Aborting `signal` cancels it through mcp-cancel:
   * the promise rejects with `signal.reason`.
   *
   * @param {string} method
   * @param {object} [params]
   * @param {{ signal?: AbortSignal, onProgress?: (params: any) => void, onMessage?: (message: any) => void }} [options]
   *   `onMessage` sees every message of this request that mcp-cancel let through.
   */
  request(method, params = {}, { signal, onProgress, onMessage } = {}) {
    if (!this.#session) throw new Error("not connected");
    this.#makeRoom();
    const id = this.#nextId++;
    const progressToken = onProgress ? id : undefined;
    const meta = { ...params._meta };
    if (progressToken !== undefined) meta.progressToken = progressToken;
    if (this.#era === "modern") {
      meta[`${META}protocolVersion`] = MODERN_VERSION;
      meta[`${META}clientInfo`] = CLIENT_INFO;
      meta[`${META}clientCapabilities`] = {};
    }
    const message = { jsonrpc: "2.0", id, method, params: Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params };

    // mcp-cancel records the request; the request's own signal (session.signal(id), asked
    // for right away) aborts when the request is cancelled: by `signal`, or on a stream close.
    this.#session.track(id, method, { signal, params: message.params });
    const requestSignal = this.#session.signal(id);
    const call = { id, method, progressToken, stream: new AbortController(), onProgress, onMessage, settled: false, cancelled: false, open: true };
    const response = new Promise((resolve, reject) => Object.assign(call, { resolve, reject }));
    this.#calls.set(id, call);
    if (progressToken !== undefined) this.#byToken.set(progressToken, id);
    requestSignal?.addEventListener("abort", () => this.#onCancelled(call, requestSignal.reason), { once: true });

    this.#post(message, call)
      .then(() => {
        if (!call.settled && !call.cancelled) this.#fail(call, new Error(`The server ended the response to ${method} without answering it.`));
      })
      .catch((error) => {
        if (!call.cancelled) this.#fail(call, error);
      })
      .finally(() => this.#streamEnded(call));
    return { id, progressToken, response };
  }

  /** Calls a tool. See `request()`. */
  callTool(name, args, options) {
    return this.request("tools/call", { name, arguments: args }, options);
  }

  /** Ends the connection: closes every stream, and the session on the server (legacy era). */
  async close() {
    for (const call of this.#calls.values()) {
      clearTimeout(call.linger);
      if (!call.settled && !call.cancelled) this.#settle(call, () => call.reject(new Error("Disconnected.")));
      call.stream.abort();
    }
    this.#calls.clear();
    this.#session?.close();
    if (this.#era === "legacy" && this.#sessionId !== undefined) {
      await fetch(this.url, { method: "DELETE", headers: this.#headers(), keepalive: true }).catch(() => {});
    }
  }

  // -- negotiation -----------------------------------------------------------------------

  /** The 2026-07-28 probe. True when the server speaks it; false to fall back to `initialize`. */
  async #discover() {
    try {
      const result = await this.request("server/discover").response;
      if (!Array.isArray(result?.supportedVersions) || !result.supportedVersions.includes(MODERN_VERSION)) return false;
      this.#session.setProtocolVersion(MODERN_VERSION);
      this.protocolVersion = MODERN_VERSION;
      this.serverInfo = result._meta?.[`${META}serverInfo`];
      this.instructions = result.instructions;
      return true;
    } catch (error) {
      // A 2025-era server refuses the unknown method (an HTTP 4xx or a JSON-RPC error):
      // fall back. Unreachable, or asking for credentials: report it.
      if (error instanceof NetworkError) throw error;
      if (error instanceof HttpError && (error.status === 401 || error.status === 403)) throw error;
      return false;
    }
  }

  // -- sending ---------------------------------------------------------------------------

  #headers(message) {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    if (this.#era === "modern") {
      headers["MCP-Protocol-Version"] = MODERN_VERSION;
      if (message?.id !== undefined && message.method !== undefined) {
        headers["Mcp-Method"] = message.method;
        const field = NAME_HEADER_FIELD[message.method];
        const value = field && message.params?.[field];
        if (typeof value === "string") headers["Mcp-Name"] = headerValue(value);
      }
    } else {
      if (this.#sessionId !== undefined) headers["Mcp-Session-Id"] = this.#sessionId;
      if (this.protocolVersion !== undefined) headers["MCP-Protocol-Version"] = this.protocolVersion;
    }
    return headers;
  }

  /**
   * POSTs one message and reads what the server answers: nothing (202), a JSON body, or an
   * SSE stream; every message in it goes to #receive(). `call` is the request's own state
   * (its stream's AbortController); undefined for notifications and responses.
   */
  async #post(message, call) {
    let response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: this.#headers(message),
        body: JSON.stringify(message),
        signal: call?.stream.signal,
      });
    } catch (error) {
      if (call?.stream.signal.aborted) return;
      throw new NetworkError(this.url, error);
    }
    const sessionId = response.headers.get("mcp-session-id");
    if (sessionId !== null && message.method === "initialize") this.#sessionId = sessionId;
    if (response.status === 202) return;
    const type = response.headers.get("content-type") ?? "";
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      // An HTTP error whose body is the JSON-RPC error answer to this very request.
      const answer = parseJson(text);
      if (call !== undefined && answer?.id === call.id && answer.error !== undefined) return this.#receive(answer);
      if (response.status === 404 && this.#sessionId !== undefined) {
        throw new HttpError(404, "Not Found", "the server no longer knows this session; connect again", this.url);
      }
      throw new HttpError(response.status, response.statusText, text, this.url);
    }
    if (type.includes("text/event-stream")) return this.#readStream(response.body, call);
    if (type.includes("application/json")) {
      const body = parseJson(await response.text());
      if (body === undefined) throw new HttpError(response.status, response.statusText, "(invalid JSON)", this.url);
      for (const m of Array.isArray(body) ? body : [body]) this.#receive(m);
      return;
    }
    if (call === undefined) return; // a notification answered 200 with no body
    throw new HttpError(response.status, response.statusText, `unexpected content type "${type}"`, this.url);
  }

  /** Reads an SSE response until the server ends it or we close it. */
  async #readStream(body, call) {
    const parser = createSseParser(({ data }) => {
      if (data.trim() === "") return; // a priming event (resumability) carries no message
      const message = parseJson(data);
      if (message === undefined) this.#emit("problem", new Error(`The server sent an event that is not JSON: ${data.slice(0, 200)}`));
      else this.#receive(message);
    });
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch (error) {
      if (call?.stream.signal.aborted) return; // we closed it (a cancel, or after the linger)
      throw new NetworkError(this.url, error);
    } finally {
      parser.end();
    }
  }

  /** A notification of ours, past mcp-cancel's `beforeSend()` like every message we send ourselves. */
  async #notify(method, params) {
    const out = this.#session.beforeSend(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
    if (out !== undefined) await this.#post(out);
  }

  /** mcp-cancel's `send`: a `notifications/cancelled` (or `tasks/cancel`) to POST. */
  #sendCancel(message) {
    const requestId = message.params?.requestId;
    this.#post(message).then(
      () => this.#emit("cancel-delivered", { requestId, via: "notification", status: 202 }),
      (error) => this.#emit("cancel-failed", { requestId, error }),
    );
  }

  /** mcp-cancel's `closeStream` (2026-07-28 over Streamable HTTP): closing the stream is the cancel. */
  #closeStream(requestId) {
    const call = this.#calls.get(requestId);
    if (call === undefined) return;
    call.closedByCancel = true; // "cancel-delivered" once the fetch has let go of it (#streamEnded)
    call.stream.abort();
  }

  /** Answers a request from the server: `ping`; anything else is not supported by this page. */
  #answer(request) {
    const response =
      request.method === "ping"
        ? { jsonrpc: "2.0", id: request.id, result: {} }
        : { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: `Method not supported by this client: ${request.method}` } };
    // beforeSend() suppresses the answer to a request the server cancelled meanwhile.
    const out = this.#session.beforeSend(response);
    if (out !== undefined) this.#post(out).catch((error) => this.#emit("problem", error));
  }

  // -- receiving -------------------------------------------------------------------------

  /** Every message from the server: mcp-cancel says whether the app gets it. */
  #receive(message) {
    const isResponse = message?.method === undefined;
    if (this.#session.shouldDropIncoming(message)) {
      const requestId = isResponse ? message?.id : this.#byToken.get(message?.params?.progressToken);
      this.#emit("dropped", { requestId, kind: isResponse ? "response" : message.method === "notifications/progress" ? "progress" : message.method, message });
      return;
    }
    if (isResponse) {
      const call = this.#calls.get(message?.id);
      if (call === undefined || call.settled) {
        this.#emit("problem", new Error(`The server answered a request this page does not know (id ${JSON.stringify(message?.id)}).`));
        return;
      }
      call.onMessage?.(message);
      this.#settle(call, () => (message.error !== undefined ? call.reject(new RpcError(message.error)) : call.resolve(message.result)));
    } else if (message.method === "notifications/progress") {
      const call = this.#calls.get(this.#byToken.get(message.params?.progressToken));
      call?.onMessage?.(message);
      call?.onProgress?.(message.params);
    } else if (message.id !== undefined) {
      this.#answer(message);
    } else {
      this.#emit("notification", message);
    }
  }

  // -- the life of a call ----------------------------------------------------------------

  #settle(call, how) {
    if (call.settled) return;
    call.settled = true;
    how();
  }

  /** mcp-cancel cancelled the request (our signal aborted): its caller gets the reason. */
  #onCancelled(call, reason) {
    call.cancelled = true;
    this.#settle(call, () => call.reject(reason));
    // A 2025-era cancel is a notification: the server may still send on this stream. Read it
    // for a while, so late messages are seen being dropped, then close it.
    if (call.open) call.linger = setTimeout(() => call.stream.abort(), LINGER_MS);
  }

  /** The request failed before any answer: mcp-cancel forgets it (nothing to cancel), the caller gets the error. */
  #fail(call, error) {
    this.#session.shouldDropResponse(call.id);
    this.#settle(call, () => call.reject(error));
  }

  #streamEnded(call) {
    call.open = false;
    clearTimeout(call.linger);
    if (call.closedByCancel) this.#emit("cancel-delivered", { requestId: call.id, via: "stream-close" });
    if (call.settled) this.#calls.delete(call.id);
  }

  /** Keeps under MAX_STREAMS: closes the oldest stream still read after its cancel. */
  #makeRoom() {
    if (this.openStreams < MAX_STREAMS) return;
    for (const call of this.#calls.values()) {
      if (call.open && call.cancelled) {
        call.stream.abort();
        call.open = false;
        return;
      }
    }
    throw new Error(`At most ${MAX_STREAMS} calls can run at once: a browser opens at most 6 connections to one server, and a cancel needs one.`);
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** 2026-07-28: a header value that is not plain printable ASCII is sent base64-encoded, between "=?base64?" and "?=". */
function headerValue(value) {
  const plain = value !== "" && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="));
  if (plain) return value;
  const bytes = new TextEncoder().encode(value);
  return `=?base64?${btoa(String.fromCharCode(...bytes))}?=`;
}
