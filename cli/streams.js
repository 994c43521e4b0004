// The response streams of `mcp-cancel bridge --stdio`, one per HTTP request: what carries a
// request's answer to its client, and what tells the relay when a stream closes before that
// answer. For a Streamable HTTP server a closed stream is how a client goes away (a killed
// client, a 2026-07-28 client's cancel), so every stream's early close reaches the core
// (`streamClosed`), which decides what it means: a cancel, a resume grace, or nothing.
//
//   exchange()       one HTTP exchange of a 2025-era session, answered by the SDK transport
//                    (its resumable streams are the session's StreamStore, cli/resume.js)
//   ModernRequests   the 2026-07-28 requests: no session, a client of the relay for as long
//                    as each one's response stream, at most --max-requests at once
//   RequestStream    the transport of one 2026-07-28 request: its SSE response stream

import { createRequire } from "node:module";

import { jsonError } from "./gate.js";

/** Who the bridge is, in the handshake it makes with the child itself (for 2026-07-28 clients). */
const CLIENT_INFO = { name: "mcp-cancel bridge", version: createRequire(import.meta.url)("./package.json").version };

/**
 * One HTTP exchange of `session`: the SDK transport answers it; when its response stream
 * closes before its end (the client went away), the relay is told which requests it carried
 * (`streamClosed`) and the server side that a stream was lost (`servers.lost`). A GET with
 * Last-Event-ID resumes a stream (the store tells the relay). `session.open` counts its
 * exchanges open, `session.lastExchange` is when the latest began (performance.now()).
 *
 * @param {{ transport: any, client: any, store: import("./resume.js").StreamStore, open?: number, lastExchange?: number }} session
 * @param {import("node:http").IncomingMessage} req
 * @param {import("node:http").ServerResponse} res
 * @param {unknown} body the POST's JSON body (undefined for a GET or a DELETE)
 * @param {{ lost(session: object): void }} servers the server side (one child, or one per session)
 * @returns {Promise<void>}
 */
export function exchange(session, req, res, body, servers) {
  const messages = Array.isArray(body) ? body : body === undefined ? [] : [body];
  const ids = messages.flatMap((m) => (m !== null && typeof m === "object" && (typeof m.id === "string" || typeof m.id === "number") ? [m.id] : []));
  const current = { ids, stream: undefined };
  const resumed = req.method === "GET" ? session.store.streamOf(req.headers["last-event-id"]) : undefined;
  session.open = (session.open ?? 0) + 1;
  session.lastExchange = performance.now();
  res.once("close", () => {
    session.open--;
    const stream = current.stream;
    if (stream !== undefined && !session.store.holds(stream, current)) return; // a resume took it over
    if (res.writableFinished) {
      if (stream !== undefined) session.store.ended(stream);
      return;
    }
    const carried = stream !== undefined ? session.store.idsOf(stream) : resumed !== undefined ? [] : ids;
    if (stream !== undefined) session.store.lost(stream);
    for (const id of carried) session.client.streamClosed(id);
    servers.lost(session);
  });
  return session.store.exchange(current, () => session.transport.handleRequest(req, res, body));
}

/**
 * The 2026-07-28 requests (and notifications): no session; the relay's client for one lives
 * as long as its response stream. Its `server/discover` is the relay's to answer, from the
 * handshake the relay makes with the child first when no 2025-era client has. Its answer is
 * made a 2026-07-28 one by the core (`relay.modernAnswer`); its response stream closing
 * before the answer is its cancel (`streamClosed`: the core sends the child's revision's
 * cancel). A notification is accepted (202) and not forwarded.
 */
export class ModernRequests {
  /** Requests in flight (their response streams open): at most `#maxRequests`. */
  #inFlight = 0;
  #maxRequests;
  #servers;

  /**
   * @param {object} options
   * @param {number} options.maxRequests --max-requests: beyond it, 503 and nothing forwarded
   * @param {{ modern(): Promise<any> }} options.servers the server side: `modern()` is the
   *   relay of the child that serves 2026-07-28 requests, started
   */
  constructor({ maxRequests, servers }) {
    this.#maxRequests = maxRequests;
    this.#servers = servers;
  }

  /**
   * Serves one 2026-07-28 POST: its answer (or its error) on its own response stream.
   *
   * @param {string} version the request's revision (the core's classification)
   * @param {import("node:http").IncomingMessage} req
   * @param {import("node:http").ServerResponse} res
   * @param {{ id?: string | number, method?: string }} body
   */
  async serve(version, req, res, body) {
    if (body.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (this.#inFlight >= this.#maxRequests) {
      return jsonError(res, 503, -32000, `Service Unavailable: this bridge holds its most 2026-07-28 requests in flight (${this.#maxRequests}, --max-requests)`, { "retry-after": "1" });
    }
    this.#inFlight++;
    res.once("close", () => this.#inFlight--);
    let relay;
    try {
      relay = await this.#servers.modern();
      await relay.handshake(CLIENT_INFO);
    } catch (error) {
      return jsonError(res, 502, -32000, `Bad Gateway: ${error.message}`);
    }
    const stream = new RequestStream(res, body, (message) => relay.modernAnswer(body.method, message));
    const client = relay.connect(stream, { streamableHttp: true, protocolVersion: version });
    res.once("close", () => {
      if (!stream.answered) client.streamClosed(body.id);
      client.disconnect();
    });
    stream.onmessage?.(body);
  }
}

/**
 * The transport of one 2026-07-28 request (a client of the relay for as long as its response
 * stream): what the relay sends it goes on the request's SSE response stream; its answer
 * (`answer(message)` makes it a 2026-07-28 one) ends the stream.
 */
class RequestStream {
  /**
   * @param {import("node:http").ServerResponse} res
   * @param {{ id: string | number }} request the request's body
   * @param {(message: object) => object} answer
   */
  constructor(res, request, answer) {
    this.res = res;
    this.id = request.id;
    this.answer = answer;
    /** Whether its answer was sent (the stream ended). */
    this.answered = false;
    this.onmessage = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
  }

  async start() {}

  async send(message) {
    if (this.answered || this.res.writableEnded) return;
    const isAnswer = message.method === undefined && message.id === this.id;
    const out = isAnswer ? this.answer(message) : message;
    if (!this.res.headersSent) {
      this.res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" });
    }
    this.res.write(`event: message\ndata: ${JSON.stringify(out)}\n\n`);
    if (isAnswer) {
      this.answered = true;
      this.res.end();
    }
  }

  async close() {
    if (!this.res.writableEnded) this.res.end();
  }
}
