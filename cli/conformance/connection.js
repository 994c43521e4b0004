// The conformance suite's client side: one raw JSON-RPC connection to the server under test,
// over the MCP SDK's own transports (stdio: the SDK 1.x StdioClientTransport; Streamable
// HTTP: the SDK 2.x StreamableHTTPClientTransport, which has a response stream per request),
// with every message in both directions recorded for the evidence and every cancellation
// decision left to mcp-cancel's CancellationSession: the suite tracks each request it sends,
// passes each message that arrives through `shouldDropIncoming()`, and cancels with
// `session.cancel()` — which sends the revision's kind of cancel (a notification, a
// `tasks/cancel`, or in 2026-07-28 over Streamable HTTP the close of the request's stream).
// The only messages that bypass the session are the deliberately invalid cancels a scenario
// sends on purpose (`writeRaw()`).

import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { CancellationSession } from "mcp-cancel";

/** The client the suite introduces itself as. */
export const CLIENT_INFO = Object.freeze({ name: "mcp-cancel-conformance", version: "1.0.0" });

/** The revision without `initialize`: requests carry the version in `_meta`, `server/discover` replaces the handshake. */
export const DISCOVER_ERA = "2026-07-28";

/** The first id the suite numbers its own requests from (scenarios choose 0, "", 7, "8" themselves). */
const FIRST_ID = 1000;

/** The requests a server sends a client while it handles a client's request (its nested requests). */
export const NESTED_METHODS = Object.freeze(["elicitation/create", "sampling/createMessage", "roots/list"]);

/**
 * The suite's answer, as a client, to a request the server sends it: a declined elicitation,
 * a one-line sampling answer, no roots, an empty ping result; "Method not found" for the rest.
 *
 * @param {string} method
 * @returns {{ result: any } | { error: { code: number, message: string } }}
 */
export function clientAnswer(method) {
  switch (method) {
    case "ping":
      return { result: {} };
    case "roots/list":
      return { result: { roots: [] } };
    case "elicitation/create":
      return { result: { action: "decline" } };
    case "sampling/createMessage":
      return { result: { role: "assistant", content: { type: "text", text: "conformance" }, model: "mcp-cancel-conformance", stopReason: "endTurn" } };
    default:
      return { error: { code: -32601, message: `Method not found: ${method}` } };
  }
}

/**
 * A key for a request id that keeps `"1"` and `1` apart (a `Map` would too; the key is
 * also printed).
 *
 * @param {string | number} id
 * @returns {string}
 */
export function idKey(id) {
  return typeof id === "string" ? `s:${id}` : `n:${id}`;
}

/**
 * One connection to the server under test.
 *
 * Call order: `start()`, then `handshake()` (or, for the initialize scenario, `request()` of
 * `initialize` yourself), then any number of `request()` / `cancel()` / `writeRaw()` /
 * `ping()`, then `close()`. Every message crossing the transport is in `wire`, with the time
 * since `start()`, and whether the session dropped it. A request the server sends is answered
 * at once (`clientAnswer()`, through the session) unless `hold(record)` claims it for the
 * scenario, which answers it later with `answer()`.
 */
export class Connection {
  /**
   * @param {{ kind: "stdio", command: string, args: string[] } | { kind: "http", url: URL }} target
   * @param {{ protocolVersion: string }} options the version offered (`initialize`) or asked for (`server/discover`)
   */
  constructor(target, { protocolVersion }) {
    this.target = target;
    this.offered = protocolVersion;
    /** @type {{ at: number, dir: "out" | "in", message: any, dropped?: boolean, by?: string }[]} */
    this.wire = [];
    /** Every event of the session, with its time. @type {{ at: number, event: any }[]} */
    this.events = [];
    /** The server's stderr (stdio), its last 8 KiB. */
    this.stderr = "";
    /** When the transport closed (the server exited or dropped the connection), else `undefined`. */
    this.closedAt = undefined;
    /** Set by `close()`: the transport closing then is ours, not the server's. */
    this.closing = false;
    /** Errors the transport reported. @type {string[]} */
    this.transportErrors = [];
    /** The negotiated protocol version, once known. @type {string | undefined} */
    this.protocolVersion = undefined;
    /** The server's capabilities from the handshake. */
    this.serverCapabilities = undefined;
    this.nextId = FIRST_ID;
    this.startedAt = performance.now();
    /** Waiters for responses, by idKey. */
    this.waiting = new Map();
    /** Responses that arrived, by idKey (the first one). */
    this.responses = new Map();
    /** The AbortController of each request's response stream (Streamable HTTP), by idKey. */
    this.streams = new Map();
    /** Why a request could not be sent, by idKey. */
    this.sendFailures = new Map();
    /** Listeners for every message that arrives. @type {Set<(record: any) => void>} */
    this.listeners = new Set();
    /** The client capabilities declared in the handshake (a scenario sets them before it). */
    this.capabilities = {};
    /** Whether a request from the server is the scenario's to answer (else it is answered at once). @type {(record: any) => boolean} */
    this.hold = () => false;

    const http = target.kind === "http";
    this.session = new CancellationSession({
      transport: http ? "streamable-http" : "stdio",
      // Every cancel the session decides on goes on the wire as it made it.
      send: (message) => {
        this.#write(message, "session").catch((error) => this.transportErrors.push(describe(error)));
      },
      // 2026-07-28 over Streamable HTTP: closing the request's response stream is the cancel.
      closeStream: (id) => this.streams.get(idKey(id))?.abort(new Error("cancelled: the client closed the stream")),
      onEvent: (event) => this.events.push({ at: this.now(), event }),
    });
    this.transport = http
      ? new StreamableHTTPClientTransport(target.url)
      : new StdioClientTransport({ command: target.command, args: target.args, stderr: "pipe", env: { ...process.env } });
  }

  /** Milliseconds since the connection was made (or since `resetClock()`). */
  now() {
    return Math.round(performance.now() - this.startedAt);
  }

  /** Counts time from now on (a connection started ahead of its scenario starts its clock with it). */
  resetClock() {
    const shift = performance.now() - this.startedAt;
    this.startedAt += shift;
    for (const record of this.wire) record.at -= Math.round(shift);
    if (this.closedAt !== undefined) this.closedAt -= Math.round(shift);
  }

  /**
   * Starts the transport (spawns the server for stdio).
   *
   * @throws the transport's error (for example ENOENT when the command does not exist)
   */
  async start() {
    const transport = this.transport;
    transport.onmessage = (message) => this.#arrived(message);
    transport.onclose = () => {
      // Our own close() is not the server exiting.
      if (!this.closing) this.closedAt ??= this.now();
      for (const waiter of this.waiting.values()) waiter.resolve(undefined);
    };
    transport.onerror = (error) => this.transportErrors.push(describe(error));
    transport.stderr?.on("data", (chunk) => (this.stderr = (this.stderr + chunk).slice(-8192)));
    await transport.start();
  }

  /**
   * The handshake of the offered revision: `initialize` + `notifications/initialized`, or in
   * 2026-07-28 `server/discover` (the session is told the version).
   *
   * @param {number} timeoutMs
   * @returns {Promise<void>}
   * @throws {Error} when the server does not answer, answers with an error, or does not support the version asked for
   */
  async handshake(timeoutMs) {
    if (this.offered === DISCOVER_ERA) {
      const sent = this.request("server/discover", {}, { timeoutMs });
      const response = await sent.response;
      if (response === undefined) throw new Error(this.#unanswered(sent, timeoutMs));
      if (response.error) throw new Error(`server/discover: error ${response.error.code} ${response.error.message}`);
      const supported = response.result?.supportedVersions ?? [];
      if (!supported.includes(DISCOVER_ERA)) {
        throw new Error(`the server does not support ${DISCOVER_ERA} (server/discover lists ${JSON.stringify(supported)})`);
      }
      this.serverCapabilities = response.result?.capabilities ?? {};
      this.#negotiated(DISCOVER_ERA);
      return;
    }
    const sent = this.request("initialize", this.initializeParams(), { timeoutMs });
    const response = await sent.response;
    if (response === undefined) throw new Error(this.#unanswered(sent, timeoutMs));
    if (response.error) throw new Error(`initialize: error ${response.error.code} ${response.error.message}`);
    this.initialized(response);
  }

  /** Why a request got no response: it could not be sent, the server exited, or it did not answer in time. */
  #unanswered(sent, timeoutMs) {
    const failed = this.sendFailures.get(idKey(sent.id));
    if (failed !== undefined) return `${sent.method} could not be sent: ${failed}`;
    if (this.closedAt !== undefined) return `${sent.method}: the server exited before answering`;
    return `${sent.method}: no answer within ${timeoutMs} ms`;
  }

  /** The `initialize` params the suite sends. */
  initializeParams() {
    return { protocolVersion: this.offered, capabilities: this.capabilities, clientInfo: CLIENT_INFO };
  }

  /**
   * After the `initialize` result: records the version and capabilities, sends
   * `notifications/initialized`. (The session learned the version from the result itself.)
   *
   * @param {any} response the initialize response
   */
  initialized(response) {
    this.serverCapabilities = response.result?.capabilities ?? {};
    this.#negotiated(response.result?.protocolVersion);
    void this.#write({ jsonrpc: "2.0", method: "notifications/initialized" }, "suite").catch(() => {});
  }

  #negotiated(version) {
    this.protocolVersion = version;
    if (typeof version !== "string") return;
    if (this.session.revision === undefined) this.session.setProtocolVersion(version);
    this.transport.setProtocolVersion?.(version);
  }

  /**
   * Sends a request the session tracks. `params._meta` gets the 2026-07-28 envelope when that
   * revision is in use, and `progressToken` when asked for.
   *
   * @param {string} method
   * @param {any} params
   * @param {{ id?: string | number, progressToken?: string | number, timeoutMs?: number }} [options]
   * @returns {{ id: string | number, method: string, params: any, sentAt: number, progressToken?: string | number, response: Promise<any> }}
   *   `response` resolves with the first response (a result or an error, whether the session dropped it or not),
   *   or `undefined` after `timeoutMs` or when the connection closed
   */
  request(method, params = {}, { id = this.nextId++, progressToken, timeoutMs = 10000 } = {}) {
    const meta = { ...(params._meta ?? {}) };
    if (progressToken !== undefined) meta.progressToken = progressToken;
    if (this.offered === DISCOVER_ERA) {
      meta["io.modelcontextprotocol/protocolVersion"] = DISCOVER_ERA;
      meta["io.modelcontextprotocol/clientCapabilities"] ??= this.capabilities;
      meta["io.modelcontextprotocol/clientInfo"] ??= CLIENT_INFO;
    }
    const fullParams = Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
    const message = { jsonrpc: "2.0", id, method, params: fullParams };
    const key = idKey(id);
    this.responses.delete(key);
    const response = new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.set(key, {
        resolve: (value) => {
          clearTimeout(timer);
          this.waiting.delete(key);
          resolve(value);
        },
      });
    });
    this.session.track(id, method, { params: fullParams });
    const sentAt = this.now();
    let sendOptions;
    if (this.target.kind === "http") {
      const stream = new AbortController();
      this.streams.set(key, stream);
      sendOptions = { requestSignal: stream.signal };
    }
    this.#write(message, "suite", sendOptions).catch((error) => {
      this.sendFailures.set(key, describe(error));
      // A request that never left is not in flight: the session forgets it.
      this.session.shouldDropResponse(id);
      this.waiting.get(key)?.resolve(undefined);
    });
    return { id, method, params, sentAt, progressToken, response };
  }

  /**
   * Cancels our request `id` through the session, which decides what goes on the wire.
   *
   * @param {string | number} id
   * @param {string} reason
   * @returns {{ at: number, decision: string }} when it was asked, and what the session did (from its events)
   */
  cancel(id, reason) {
    const at = this.now();
    const before = this.events.length;
    let decision;
    try {
      this.session.cancel(id, reason);
      decision = this.events.slice(before).map(({ event }) => describeEvent(event)).join("; ") || "nothing";
    } catch (error) {
      decision = `refused: ${error.code ?? ""} ${error.message}`.trim();
    }
    return { at, decision };
  }

  /**
   * Puts a message on the wire without the session: only for the invalid cancels a scenario
   * sends on purpose.
   *
   * @param {any} message
   * @returns {Promise<number>} when it was written
   */
  async writeRaw(message) {
    const at = this.now();
    await this.#write(message, "probe");
    return at;
  }

  /**
   * Answers a request the server sent, through the session: when the server cancelled it,
   * `beforeSend()` says to send nothing, and nothing is sent — unless `past`, when the answer
   * goes out anyway, marked as sent on purpose past the session (a late answer a scenario
   * sends to see what the server makes of it).
   *
   * @param {string | number} id the server's request id
   * @param {{ result: any } | { error: any }} body
   * @param {{ past?: boolean }} [options]
   * @returns {Promise<string>} what happened, in words
   */
  async answer(id, body, { past = false } = {}) {
    const message = { jsonrpc: "2.0", id, ...body };
    const out = this.session.beforeSend(message);
    if (out !== undefined) {
      await this.#write(out, "suite");
      return "sent through the session";
    }
    if (!past) return "not sent: the session suppressed it (the server cancelled the request)";
    await this.#write(message, "probe");
    return "sent past the session, which suppressed it (the server had cancelled the request)";
  }

  /**
   * Whether the server still answers: a `ping`, or in 2026-07-28 (which has no `ping`) a
   * `server/discover`, which every server of that revision implements.
   *
   * @param {number} timeoutMs
   * @returns {Promise<{ ok: boolean, ms: number, detail: string }>}
   */
  async ping(timeoutMs) {
    if (this.closedAt !== undefined) return { ok: false, ms: 0, detail: `the server's connection closed at +${this.closedAt} ms (the server exited)` };
    const method = this.offered === DISCOVER_ERA ? "server/discover" : "ping";
    const sent = this.request(method, {}, { timeoutMs });
    const response = await sent.response;
    const ms = this.now() - sent.sentAt;
    if (response?.result !== undefined) return { ok: true, ms, detail: `${method} answered in ${ms} ms` };
    if (response?.error) return { ok: false, ms, detail: `${method} answered with error ${response.error.code} ${response.error.message}` };
    // An unanswered ping from a server on its way out: give it a moment to be seen exiting.
    const end = performance.now() + 3000;
    while (this.closedAt === undefined && this.target.kind === "stdio" && performance.now() < end) await sleep(20);
    if (this.closedAt !== undefined) return { ok: false, ms, detail: `${method} unanswered: the server's connection closed at +${this.closedAt} ms (the server exited)` };
    return { ok: false, ms, detail: `${method} unanswered after ${timeoutMs} ms` };
  }

  /**
   * Calls `listener(record)` for every message that arrives from now on.
   *
   * @returns {() => void} removes it
   */
  onMessage(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The response that arrived for `id`, if any. */
  responseTo(id) {
    return this.responses.get(idKey(id));
  }

  /**
   * Closes the transport: stdio ends the server's stdin (and terminates a server that
   * lingers); Streamable HTTP ends the server's session (DELETE) when it has one.
   */
  async close() {
    this.closing = true;
    this.session.close();
    for (const stream of this.streams.values()) stream.abort();
    const transport = this.transport;
    const closing = (async () => {
      if (this.target.kind === "http" && transport.sessionId !== undefined) await transport.terminateSession().catch(() => {});
      await transport.close().catch(() => {});
    })();
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }

  async #write(message, by, options) {
    message = this.#enveloped(message);
    this.wire.push({ at: this.now(), dir: "out", message, by });
    await this.transport.send(message, options);
  }

  /**
   * In 2026-07-28 a notification whose params are an object carries the version in `_meta`,
   * as the SDK 2.x client sends them (the SDK 2.x server takes a notification without it
   * for the legacy era).
   */
  #enveloped(message) {
    if (this.offered !== DISCOVER_ERA || message.id !== undefined || typeof message.method !== "string") return message;
    const params = message.params;
    if (params === undefined || params === null || typeof params !== "object" || Array.isArray(params)) return message;
    if (params._meta?.["io.modelcontextprotocol/protocolVersion"] !== undefined) return message;
    return { ...message, params: { ...params, _meta: { ...(params._meta ?? {}), "io.modelcontextprotocol/protocolVersion": DISCOVER_ERA } } };
  }

  #arrived(message) {
    const record = { at: this.now(), dir: "in", message };
    this.wire.push(record);
    record.dropped = this.session.shouldDropIncoming(message);
    if (message.method === undefined && (typeof message.id === "string" || typeof message.id === "number")) {
      const key = idKey(message.id);
      if (!this.responses.has(key)) this.responses.set(key, record);
      this.waiting.get(key)?.resolve(message);
    }
    for (const listener of this.listeners) listener(record);
    if (typeof message.method === "string" && (typeof message.id === "string" || typeof message.id === "number") && !this.hold(record)) {
      this.answer(message.id, clientAnswer(message.method)).catch((error) => this.transportErrors.push(describe(error)));
    }
  }
}

/** A readable one-line form of an error. */
export function describe(error) {
  if (error instanceof Error) return error.code ? `${error.code}: ${error.message}` : error.message;
  return String(error);
}

/** A session event in a few words. */
export function describeEvent(event) {
  switch (event.type) {
    case "cancel-sent":
      return `the session cancelled via ${event.via}${event.taskId ? ` (task ${event.taskId})` : ""}`;
    case "cancel-not-sent":
      return `the session sent no cancel (${event.why})`;
    case "cancel-deferred":
      return "the session deferred the cancel until the task id is known";
    case "task-cancel-answered":
      return `tasks/cancel answered: ${event.outcome}${event.code !== undefined ? ` (${event.code})` : ""}`;
    case "late-response-dropped":
      return `late response to ${JSON.stringify(event.requestId)} dropped`;
    case "late-progress-dropped":
      return `late progress for ${JSON.stringify(event.requestId)} dropped`;
    case "cancel-ignored":
      return `cancel ignored (${event.why}${event.detail ? `: ${event.detail}` : ""})`;
    case "cancel-received":
      return `cancel received for ${JSON.stringify(event.requestId)}`;
    default:
      return event.type;
  }
}

/** A problem with the command line or the target (exit code 2), not a conformance failure. */
export class SetupError extends Error {
  name = "SetupError";
}

/** The target in words. */
export function describeTarget(target) {
  return target.kind === "http" ? target.url.href : [target.command, ...target.args].join(" ");
}

/** Resolves after `ms` ms (at once when `ms` is not positive). */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Waits until `pred()` is true or `ms` ms have passed (polling every 10 ms); returns `pred()`. */
export async function until(pred, ms) {
  const end = performance.now() + ms;
  while (!pred() && performance.now() < end) await sleep(10);
  return pred();
}
