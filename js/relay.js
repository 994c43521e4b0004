// createRelay(): MCP between any number of client transports and one server transport, with
// cancellation correct on both sides. Target-neutral: the entry module hands in the wasm
// build's RelayCore. Every decision is the core's (src/core/relay/mod.rs); this file reads the
// members of each message the core names, rewrites the ids the core says to rewrite, and
// does what the core's output says.

import { InvalidArgumentError, UsageError } from "./errors.js";
import { relaySettings } from "./options.js";
import { cancelledMessage, methodOf, paramsRecord, peerTag, readParams, readResponse, responseRecord, tables, tasksCancelMessage } from "./reader.js";

/** The `link` of the server's messages in `RelayCore.message`. */
const UPSTREAM = -1;

/** How long close() waits for the cancels of the clients' requests to be sent, in ms. */
const CLOSE_GRACE_MS = 2000;

/**
 * @param {() => any} relayCore the wasm-bindgen class of the relay's build (loaded on first use)
 * @param {() => any} constants the core's tables (`RelayCore.constantsJson()`, parsed)
 * @returns {typeof import("./index.js").createRelay}
 */
export function createRelayFactory(relayCore, constants) {
  return function createRelay(options) {
    if (options === null || typeof options !== "object" || Array.isArray(options)) {
      throw new InvalidArgumentError("createRelay(): options must be an object with an `upstream` transport", "ERR_INVALID_OPTION", options);
    }
    checkTransport(options.upstream, "createRelay(): option `upstream`");
    // The relay's own options, read here; every name, and the upstream session's options,
    // are checked by js/options.js (`relaySettings`).
    for (const name of ["onUpstreamClose", "onError"]) {
      if (options[name] !== undefined && typeof options[name] !== "function") {
        throw new InvalidArgumentError(`createRelay(): option \`${name}\` must be a function`, "ERR_INVALID_OPTION", options[name]);
      }
    }
    const max = options.maxInFlightPerClient ?? 4096;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new InvalidArgumentError("createRelay(): option `maxInFlightPerClient` must be a positive integer", "ERR_INVALID_OPTION", max);
    }
    const withTransport =
      options.transport === undefined && options.upstream.hasPerRequestStream === true ? { ...options, transport: "streamable-http" } : options;
    const w = tables(constants());
    const u = relaySettings(withTransport, w);
    const RelayCore = relayCore();
    const core = new RelayCore(
      u.flags,
      u.tombstoneCapacity,
      u.inboundCapacity,
      u.maxReasonBytes,
      u.timeout,
      u.maxTotalTimeout,
      u.genericReason,
      u.timeoutReason,
      u.protocolVersion,
      u.onEvent !== undefined,
      Math.random() * 2 ** 52,
      max,
    );
    return new Relay(core, w, options, RelayCore);
  };
}

function checkTransport(t, what) {
  if (t === null || typeof t !== "object" || typeof t.send !== "function" || typeof t.start !== "function") {
    throw new InvalidArgumentError(`${what}: expected an MCP SDK Transport (an object with start() and send())`, "ERR_INVALID_TRANSPORT", undefined);
  }
}

/** A client connected to the relay. */
class Client {
  constructor(link, transport) {
    this.link = link;
    this.transport = transport;
    this.closed = false;
  }
}

class Relay {
  #core;
  #w;
  #options;
  #upstream;
  /** @type {Map<number, Client>} */
  #clients = new Map();
  /** The request signals of upstream requests (transports with a stream per request), by upstream id. */
  #streams = new Map();
  /** The result of the shared handshake, once the core says which response it is. */
  #handshakeResult = undefined;
  #timer = undefined;
  #closed = false;
  /** Sends not settled yet. */
  #pending = new Set();

  /** The wasm class, for its static functions (`classifyHttp`, `discoverResult`, …). */
  #RelayCore;
  /** The relay's own handshake in progress (`handshake()`), if any. */
  #handshaking = undefined;
  /** What the reader reads of a message and of a response (js/reader.js), reused from one to the next. */
  #read = paramsRecord();
  #readResponse = responseRecord();

  constructor(core, w, options, RelayCore) {
    this.#RelayCore = RelayCore;
    this.#core = core;
    this.#w = w;
    this.#options = options;
    this.#upstream = options.upstream;
    const upstream = this.#upstream;
    upstream.onmessage = (message) => this.#fromUpstream(message);
    upstream.onclose = () => {
      if (this.#closed) return;
      this.#streams.clear();
      this.#core.upstreamClosed();
      this.#flush();
      this.#options.onUpstreamClose?.();
    };
    upstream.onerror = (error) => this.#report(error);
  }

  /** Starts the upstream transport. */
  start() {
    return this.#upstream.start();
  }

  /**
   * What an HTTP request to a Streamable HTTP endpoint in front of this relay is, by the
   * core's rules (`classify_http` in src/core/relay/http.rs): a 2025-era session's, one that opens
   * a session (`initialize`), a 2026-07-28 one (no session), or one to refuse (with the
   * status and JSON-RPC error to answer). This relay does not serve 2026-07-28 requests over
   * HTTP yet: they are refused with -32022 and the revisions it serves.
   *
   * @param {{ method: string, headers: Record<string, string | string[] | undefined>, body?: unknown }} request
   *   the HTTP method, the headers (lower-case names, as Node gives them) and the parsed JSON body
   */
  classifyHttp({ method, headers, body, serveModern = false }) {
    const header = (name) => (typeof headers[name] === "string" ? headers[name] : undefined);
    let kind = 0;
    let name;
    let params;
    if (Array.isArray(body)) kind = 1;
    else if (body !== null && typeof body === "object") {
      const isId = typeof body.id === "string" || typeof body.id === "number";
      if (typeof body.method === "string") {
        name = body.method;
        params = body.params;
        kind = isId ? 3 : "id" in body ? 5 : 4;
      } else kind = isId && ("result" in body || "error" in body) ? 2 : 5;
    } else if (body !== undefined) kind = 5;
    const meta = params !== null && typeof params === "object" ? params._meta : undefined;
    const claim = meta !== null && typeof meta === "object" ? meta[this.#w.names.metaProtocolVersion] : undefined;
    // schema 2026-07-28, RequestMetaObject: "io.modelcontextprotocol/clientCapabilities" (an object, required on requests).
    const capabilities = meta !== null && typeof meta === "object" ? meta["io.modelcontextprotocol/clientCapabilities"] : undefined;
    return this.#RelayCore.classifyHttp(
      method === "POST",
      header("mcp-session-id") !== undefined,
      header("mcp-protocol-version"),
      header("mcp-method"),
      kind,
      name,
      claim === undefined ? 0 : typeof claim === "string" ? 1 : 2,
      typeof claim === "string" ? claim : undefined,
      capabilities !== null && typeof capabilities === "object" && !Array.isArray(capabilities),
      serveModern === true,
    );
  }

  /**
   * Makes the upstream handshake if no client has made it yet (for clients of a revision
   * without one, 2026-07-28, whose `server/discover` the relay answers from it): an
   * `initialize` of the relay's own (the core's: the newest revision with a handshake, no
   * client capabilities, `clientInfo`), then `notifications/initialized`. Resolves once the
   * handshake is done; rejects when the server answers it with an error.
   *
   * @param {{ name: string, version: string }} clientInfo
   */
  handshake(clientInfo) {
    if (this.#handshakeResult !== undefined) return Promise.resolve();
    if (this.#handshaking !== undefined) return this.#handshaking;
    const [initialize, initialized] = JSON.parse(this.#RelayCore.relayHandshake(JSON.stringify(clientInfo)));
    this.#handshaking = new Promise((resolve, reject) => {
      const own = {
        start: async () => {},
        close: async () => {},
        send: async (message) => {
          if (message?.id !== initialize.id) return;
          // After the relay has handled the server's answer (it keeps the result first).
          queueMicrotask(() => {
            if (message.error !== undefined) reject(new Error(`the server refused the relay's initialize: ${message.error.message}`));
            else {
              own.onmessage?.(initialized);
              resolve();
            }
            handle.disconnect();
          });
        },
      };
      const handle = this.connect(own, { streamableHttp: false });
      own.onmessage(initialize);
    }).finally(() => {
      this.#handshaking = undefined;
    });
    return this.#handshaking;
  }

  /**
   * The answer the server gave to a 2026-07-28 client's request of `method` (a response),
   * made a 2026-07-28 one by the core (`resultType`, the cache fields of a cacheable result,
   * no member 2026-07-28 removed, -32002 → -32602): for a client connected with a
   * `protocolVersion` without a handshake, to a server of one with.
   *
   * @param {string} method the request's method
   * @param {object} message the response
   */
  modernAnswer(method, message) {
    return JSON.parse(this.#RelayCore.modernAnswer(method, JSON.stringify(message)));
  }

  /** Requests in flight through the relay. */
  get inFlight() {
    return this.#core?.inFlight ?? 0;
  }

  /** Clients connected. */
  get clientCount() {
    return this.#clients.size;
  }

  connect(transport, connectOptions) {
    if (this.#closed) throw new UsageError("relay.connect(): the relay is closed", "ERR_CLOSED", undefined);
    checkTransport(transport, "relay.connect()");
    const streams = connectOptions?.streamableHttp ?? transport.hasPerRequestStream === true;
    const resumeGrace = milliseconds(connectOptions?.resumeGrace, "resumeGrace");
    const idleTtl = milliseconds(connectOptions?.idleTtl, "idleTtl");
    const version = connectOptions?.protocolVersion;
    if (version !== undefined && (typeof version !== "string" || version === "")) {
      throw new InvalidArgumentError("relay.connect(): option `protocolVersion` must be a protocol version string", "ERR_INVALID_OPTION", version);
    }
    if (version !== undefined && (!Number.isNaN(resumeGrace) || !Number.isNaN(idleTtl))) {
      throw new InvalidArgumentError("relay.connect(): option `protocolVersion` (a client of one request) takes no `resumeGrace` or `idleTtl`", "ERR_INVALID_OPTION", version);
    }
    const client = new Client(this.#core.connect(streams, resumeGrace, idleTtl, version), transport);
    this.#clients.set(client.link, client);
    transport.onmessage = (message) => this.#fromClient(client, message);
    transport.onclose = () => this.#disconnected(client);
    transport.onerror = (error) => this.#report(error);
    // Its idle time to live starts now.
    this.#rearm();
    const byId = (method) => (id) => {
      const w = this.#w;
      const tag = peerTag(w, id);
      const result = this.#core?.[method](client.link, tag, tag === w.tags.number ? id : 0, tag === w.tags.string ? id : undefined);
      this.#flush();
      return result;
    };
    const closed = byId("streamClosed");
    return {
      link: client.link,
      /**
       * The client closed the response stream of its request `id`: its cancel in 2026-07-28
       * over Streamable HTTP; before, with `resumeGrace`, cancelled when the grace ends
       * unless `streamResumed(id)` comes first. `true` when it is cancelled now.
       */
      streamClosed: (id) => closed(id) === 1,
      /** A stream of the client resumed its request `id` within the grace: `true` when it was waiting. */
      streamResumed: byId("streamResumed"),
      /** The client was heard from without a message (an HTTP request of its session): its idle time to live restarts. */
      heard: () => {
        if (client.closed) return;
        this.#core?.heard(client.link);
      },
      /** Forgets the client: its requests in flight are cancelled upstream. */
      disconnect: () => this.#disconnected(client),
    };
  }

  /**
   * Closes the relay: every client is disconnected (its requests in flight cancelled
   * upstream; those cancels are awaited, up to CLOSE_GRACE_MS), the upstream's HTTP session
   * is ended when it has one (`terminateSession`), then the upstream transport is closed.
   */
  async close() {
    if (this.#closed) return;
    for (const client of [...this.#clients.values()]) this.#disconnected(client);
    this.#closed = true;
    clearTimeout(this.#timer);
    const pending = [...this.#pending];
    if (pending.length > 0) {
      let timer;
      const grace = new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)));
      await Promise.race([Promise.allSettled(pending), grace]);
      clearTimeout(timer);
    }
    try {
      await this.#upstream.terminateSession?.();
    } catch {
      // The server may be gone already.
    }
    await this.#upstream.close();
    this.#core.free();
    this.#core = undefined;
  }

  #disconnected(client) {
    if (client.closed || this.#core === undefined) return;
    client.closed = true;
    this.#clients.delete(client.link);
    this.#core.disconnect(client.link);
    this.#flush();
  }

  /**
   * The core ended client `link` (its idle time to live passed) and forgot it: its transport
   * is closed once the answers queued for it (the `fail`s before) are sent.
   */
  #endClient(link) {
    const client = this.#clients.get(link);
    if (client === undefined || client.closed) return;
    client.closed = true;
    this.#clients.delete(link);
    const close = () => {
      Promise.resolve()
        .then(() => client.transport.close())
        .catch((error) => this.#report(error));
    };
    if (this.#pending.size === 0) close();
    else Promise.allSettled([...this.#pending]).then(close);
  }

  #report(error) {
    this.#options.onError?.(error instanceof Error ? error : new Error(String(error)));
  }

  #send(transport, message, sendOptions) {
    let sent;
    try {
      sent = transport.send(message, sendOptions);
    } catch (error) {
      this.#report(error);
      return;
    }
    if (typeof sent?.then !== "function") return;
    // Kept until settled: close() waits for what is still being sent.
    const settled = sent.then(
      () => {},
      (error) => this.#report(error),
    );
    this.#pending.add(settled);
    settled.then(() => this.#pending.delete(settled));
  }

  // ----- from a client -----

  #fromClient(client, message) {
    const core = this.#core;
    if (core === undefined || message === null || typeof message !== "object") return;
    if (Array.isArray(message)) {
      // The core answers it (a `fail` output), or not.
      core.batch(client.link);
      this.#report(new Error(`client ${client.link} sent a JSON-RPC batch: refused`));
      this.#flush();
      return;
    }
    const w = this.#w;
    const code = methodOf(w, message.method);
    const id = message.id;
    const idTag = peerTag(w, id);
    const name = code === 0 ? message.method.slice(0, w.maxPeerString) : undefined;
    let need = code >= 0 ? w.incoming[code] : 0;
    let verdict;
    for (;;) {
      const r = readParams(w, message, need, true, this.#read);
      verdict = core.message(client.link, code, name, idTag, idTag === w.tags.number ? id : 0, idTag === w.tags.string ? id : undefined, need, r.paramsTag, r.argTag, r.argNum, r.argStr, r.reasonTag, r.reason, r.taskId, r.status, r.task, r.protocolVersion);
      if ((verdict & 0xff) !== w.relayForward.needFields) break;
      need |= verdict >>> 8;
    }
    const upId = core.forwardId;
    const upToken = core.forwardToken;
    const answerId = core.forwardAnswerId;
    // The output first: the upstream transport learns a version the request named
    // (`upstream-version`) before the request goes out. A callback it ran (`onEvent`) may
    // have disconnected the client or closed the relay: then its request is not sent (the
    // core has cancelled it already).
    this.#flush();
    if (client.closed || this.#closed) return;
    if (verdict === w.relayForward.upstream) this.#toUpstream(message, upId, upToken);
    else if (verdict === w.relayForward.answerHandshake) this.#answerHandshake(client, id);
    // The client's answer to a request of the server's: under the server's id.
    else if (verdict === w.relayForward.answerServer) this.#send(this.#upstream, { ...message, id: answerId });
    else if (verdict === w.relayForward.answerDiscover) {
      const result = JSON.parse(this.#RelayCore.discoverResult(JSON.stringify(this.#handshakeResult ?? {})));
      this.#send(client.transport, { jsonrpc: "2.0", id, result });
    }
  }

  #toUpstream(message, upId, upToken) {
    let out = message;
    if (!Number.isNaN(upId)) {
      const params = message.params;
      out =
        Number.isNaN(upToken) || params === null || typeof params !== "object"
          ? { ...message, id: upId }
          : { ...message, id: upId, params: { ...params, _meta: { ...params._meta, progressToken: upToken } } };
    }
    let sendOptions;
    if (!Number.isNaN(upId) && this.#upstream.hasPerRequestStream === true) {
      // The request's own stream: closing it is the 2026-07-28 cancel (the core says when).
      const controller = new AbortController();
      this.#streams.set(upId, controller);
      sendOptions = { requestSignal: controller.signal };
    }
    if (Number.isNaN(upId)) {
      this.#send(this.#upstream, out, sendOptions);
      return;
    }
    // A request that could not be sent is not in flight: its client gets an error at once.
    const failed = (error) => {
      this.#report(error);
      this.#streams.delete(upId);
      this.#core?.upstreamSendFailed(upId);
      this.#flush();
    };
    try {
      this.#upstream.send(out, sendOptions)?.catch?.(failed);
    } catch (error) {
      failed(error);
    }
  }

  #answerHandshake(client, id) {
    this.#send(client.transport, { jsonrpc: "2.0", id, result: this.#handshakeResult });
  }

  // ----- from the server -----

  #fromUpstream(message) {
    const core = this.#core;
    if (core === undefined || message === null || typeof message !== "object") return;
    if (Array.isArray(message)) {
      core.batch(UPSTREAM);
      this.#flush();
      return;
    }
    const w = this.#w;
    const B = w.relayBackward;
    const code = methodOf(w, message.method);
    const id = message.id;
    const idTag = peerTag(w, id);
    const idNum = idTag === w.tags.number ? id : 0;
    const idStr = idTag === w.tags.string ? id : undefined;
    let verdict;
    if (code === -1) {
      verdict = core.message(UPSTREAM, -1, undefined, idTag, idNum, idStr, 0, 0, 0, 0, undefined, 0, undefined, undefined, undefined, false, undefined);
      if ((verdict & 0xff) === B.needFields) {
        const r = readResponse(w, message, verdict >>> 8, this.#readResponse);
        verdict = core.upstreamResponse(idTag, idNum, idStr, r.need, r.taskTaskId, r.resultType, r.resultTaskId, r.status, r.protocolVersion, r.hasError, r.errorCode);
      }
      if (idTag === w.tags.number) this.#streams.delete(id);
    } else {
      const name = code === 0 ? message.method.slice(0, w.maxPeerString) : undefined;
      let need = code >= 0 ? w.incoming[code] : 0;
      for (;;) {
        const r = readParams(w, message, need, true, this.#read);
        verdict = core.message(UPSTREAM, code, name, idTag, idNum, idStr, need, r.paramsTag, r.argTag, r.argNum, r.argStr, r.reasonTag, r.reason, r.taskId, r.status, r.task, r.protocolVersion);
        if ((verdict & 0xff) !== B.needFields) break;
        need |= verdict >>> 8;
      }
    }
    if (verdict === B.downstream) {
      const client = this.#clients.get(core.backLink);
      const backId = core.backId;
      const backToken = core.backToken;
      const related = core.backRelated;
      let out = message;
      if (backId !== undefined) out = { ...message, id: backId };
      else if (backToken !== undefined) out = { ...message, params: { ...message.params, progressToken: backToken } };
      // On the stream of the client's request, for a transport with one stream per request.
      if (client !== undefined) this.#send(client.transport, out, related === undefined ? undefined : { relatedRequestId: related });
    } else if (verdict === B.broadcast) {
      for (const client of this.#clients.values()) if (core.takesBroadcast(client.link)) this.#send(client.transport, message);
    } else if (verdict === B.refuse) {
      this.#send(this.#upstream, errorResponse(id, w.unroutable));
    }
    this.#flush(message);
  }

  // ----- the core's output -----

  /** Does what the core's output says; `current` is the server's message being handled, if any. */
  #flush(current) {
    const core = this.#core;
    if (core === undefined) return;
    for (let out = core.poll(); out !== undefined; out = core.poll()) {
      switch (out.type) {
        case "cancel":
          this.#cancel(out);
          break;
        case "fail": {
          const client = this.#clients.get(out.link);
          if (client !== undefined) this.#send(client.transport, errorResponse(out.id, out));
          break;
        }
        case "refuse":
          this.#send(this.#upstream, errorResponse(out.id, out));
          break;
        case "keep-handshake-result":
          this.#handshakeResult = current?.result;
          break;
        case "answer-handshake": {
          const client = this.#clients.get(out.link);
          if (client !== undefined) this.#answerHandshake(client, out.id);
          break;
        }
        case "upstream-version":
          this.#upstream.setProtocolVersion?.(out.version);
          break;
        case "end-client":
          this.#endClient(out.link);
          break;
        case "event":
          if (this.#options.onEvent !== undefined) {
            try {
              this.#options.onEvent({ ...out.event, side: out.side, ...(out.link === undefined ? {} : { link: out.link }) });
            } catch {
              // A throwing handler must not break the relay.
            }
          }
          break;
      }
    }
    this.#rearm();
  }

  #cancel(out) {
    if (out.side === "upstream") {
      // The request's own stream (per-request streams) closes with every cancel: in
      // 2026-07-28 that is the cancel; before, it follows the notification (a client may
      // close a stream at any time) and no answer is waited for on it any more.
      const controller = this.#streams.get(out.requestId);
      this.#streams.delete(out.requestId);
      if (out.via !== "stream-close") this.#send(this.#upstream, cancelMessage(this.#w, out));
      controller?.abort(out.reason ?? "Request cancelled");
      return;
    }
    const client = this.#clients.get(out.link);
    if (client !== undefined && out.via !== "stream-close") this.#send(client.transport, cancelMessage(this.#w, out));
  }

  /** One timer for the core's next deadline (the upstream's request timeouts). */
  #rearm() {
    const core = this.#core;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const due = core?.pollTimeout();
    if (due === undefined || Number.isNaN(due)) return;
    const delay = Math.min(Math.max(0, due - performance.now()), 2 ** 31 - 1);
    this.#timer = setTimeout(() => {
      this.#core?.handleTimeout();
      this.#flush();
    }, delay);
    this.#timer.unref?.();
  }
}

/**
 * A connect option in ms (`undefined`: none, passed to the core as NaN).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_OPTION` unless a finite number of at least 0.
 */
function milliseconds(value, name) {
  if (value === undefined) return Number.NaN;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(`relay.connect(): option \`${name}\` must be a number of milliseconds (at least 0)`, "ERR_INVALID_OPTION", value);
  }
  return value;
}

/** The message of a cancel output (a notification, or a `tasks/cancel` request). */
function cancelMessage(w, out) {
  return out.via === "tasks-cancel" ? tasksCancelMessage(w, out.id, out.taskId) : cancelledMessage(w, out.requestId, out.reason);
}

/** The error response to request `id` with the core's `{ code, message }`. */
function errorResponse(id, { code, message }) {
  return { jsonrpc: "2.0", id, error: { code, message } };
}
