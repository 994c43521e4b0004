// The HTTP endpoint of `mcp-cancel bridge --stdio`: the server at http://<host>:<port>/mcp and
// where each request that passed the gate (cli/gate.js) goes. The core classifies it
// (`classifyHttp`): a 2025-era request belongs to a session (Mcp-Session-Id), or opens one
// with its initialize, and is answered by that session's SDK transport; a 2026-07-28 request
// has no session and is served on its own response stream (cli/streams.js). The endpoint
// keeps the sessions, opens them (within --max-sessions), issues their ids (with --instance,
// `<name>.<uuid>`), and ends them with the bridge.

import { randomUUID } from "node:crypto";
import http from "node:http";

import { gate, jsonError, serverOptions } from "./gate.js";
import { StreamStore } from "./resume.js";
import { exchange, ModernRequests } from "./streams.js";

/** The `--stdio` HTTP endpoint: its server, its sessions, and the route of each request. */
export class Endpoint {
  /**
   * The HTTP clients' sessions (2025 revisions: Mcp-Session-Id) by id, each a client of a
   * relay: `{ transport, client, store }` (the SDK transport, the relay's handle, its
   * StreamStore) and what `exchange()` keeps of its HTTP requests.
   */
  #sessions = new Map();
  /** Sessions being opened (an initialize in progress): they count against --max-sessions. */
  #opening = 0;
  /** The 2026-07-28 requests, served without a session. */
  #modern;
  /** @type {import("node:http").Server | undefined} the HTTP server, once listening */
  #server = undefined;
  /** A new session id: a random UUID, after "<instance>." with --instance. */
  #newSessionId;
  #settings;
  #servers;
  #Transport;
  #say;

  /**
   * @param {object} options
   * @param {import("./config.js").EndpointSettings} options.settings
   * @param {import("./children.js").SessionChildren} options.servers the server side: one
   *   child shared by every client, or one per session (the same interface)
   * @param {typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js").StreamableHTTPServerTransport} options.Transport
   *   the SDK's server transport, one per session
   * @param {(text: string) => void} options.say a diagnostic line on stderr
   */
  constructor({ settings, servers, Transport, say }) {
    this.#settings = settings;
    this.#servers = servers;
    this.#Transport = Transport;
    this.#say = say;
    this.#modern = new ModernRequests({ maxRequests: settings.maxRequests, servers });
    this.#newSessionId = settings.instance === undefined ? randomUUID : () => `${settings.instance}.${randomUUID()}`;
  }

  /** Listens at the settings' host and port; false (said on stderr) when it cannot. */
  async listen() {
    const { hostnames, origins, token, maxBody, requestTimeout, port, host } = this.#settings;
    const app = gate({ hostnames, origins, token, maxBody, handle: (req, res, readJsonBody) => this.#handle(req, res, readJsonBody), say: this.#say });
    const server = http.createServer(serverOptions(requestTimeout), app);
    try {
      await new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, resolve);
      });
    } catch (error) {
      this.#say(`cannot listen on ${host}:${port}: ${error.message}`);
      return false;
    }
    this.#server = server;
    return true;
  }

  /** What the endpoint serves and how, on stderr (the tests read the "listening on" line). */
  announce(command, perSession) {
    const settings = this.#settings;
    const address = this.#server.address();
    const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
    this.#say(`listening on http://${shown}:${address.port}/mcp, relaying to "${command}"${settings.instance === undefined ? "" : `; instance ${settings.instance} (session ids ${settings.instance}.*)`}`);
    this.#say(`answering Host ${settings.hostnames.join(", ")}; Origin ${settings.origins.length > 0 ? settings.origins.join(", ") : "none (no --allow-origin)"}; ${settings.token === undefined ? "no token" : "a bearer token required"}`);
    this.#say(`a request whose stream closed is cancelled after ${settings.resumeGrace} ms without a resume; ${settings.sessionTtl > 0 ? `a session with no request for ${settings.sessionTtl} ms is ended` : "sessions never expire"}`);
    if (perSession) this.#say(`one server process per session (at most ${settings.maxSessions}), started at its initialize and ended with it; 2026-07-28 requests share one, started at the first`);
  }

  /** Ends every session and stops listening (the bridge's end); the server side stays. */
  async close() {
    for (const { transport } of this.#sessions.values()) await transport.close().catch(() => {});
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Routes one request that passed the gate. */
  async #handle(req, res, readJsonBody) {
    // "/mcp" as it nearly always comes; anything else through the URL parser ("/mcp?x", …).
    if (req.url !== "/mcp" && new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") return jsonError(res, 404, -32000, "Not found: the MCP endpoint is /mcp");
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? this.#sessions.get(sessionId) : undefined;
    let body;
    if (req.method === "POST") {
      const read = await readJsonBody();
      if (read.answered) return;
      body = read.body;
    }
    // Which revision the request belongs to and whether it needs a session: the core's
    // answer (2025-era: a session, or initialize to open one; 2026-07-28: none).
    const entry = this.#servers.classify({ method: req.method, headers: req.headers, body, serveModern: true });
    if (entry.entry === "modern") return this.#modern.serve(entry.version, req, res, body);
    if (entry.entry !== "session" && entry.entry !== "open-session") {
      return jsonError(res, entry.status ?? 400, entry.code ?? -32000, entry.message ?? "Bad Request", {}, entry.data);
    }
    if (known !== undefined) {
      // Heard from: its time to live starts again.
      known.client.heard();
      return exchange(known, req, res, body, this.#servers);
    }
    if (typeof sessionId === "string") return this.#unknownSession(res, sessionId);
    // Children still ending count too: --max-sessions bounds the processes at once.
    if (this.#sessions.size + this.#opening + this.#servers.ending() >= this.#settings.maxSessions) {
      return jsonError(res, 503, -32000, `Service Unavailable: this bridge holds its most sessions (${this.#settings.maxSessions}, --max-sessions)`, { "retry-after": "5" });
    }
    return this.#open(req, res, body);
  }

  /** A session id this bridge does not hold: 404, naming the instance it belongs to if another. */
  #unknownSession(res, sessionId) {
    const { instance } = this.#settings;
    // A session of another instance: the load balancer sent it to the wrong one.
    const owner = instance === undefined ? undefined : /^([A-Za-z0-9_-]{1,32})\./.exec(sessionId)?.[1];
    const elsewhere = owner !== undefined && owner !== instance ? ` (this is instance ${instance}; the session id names instance ${owner})` : "";
    return jsonError(res, 404, -32001, `Session not found${elsewhere}`);
  }

  /**
   * Opens a session with its initialize: its StreamStore, its SDK transport, its client of the
   * server side's relay (for a child per session, its child), then answers the initialize.
   * It is held (`#sessions`) once the SDK names it, and forgotten when its transport closes.
   */
  async #open(req, res, body) {
    const { resumeGrace, sessionTtl } = this.#settings;
    const servers = this.#servers;
    this.#opening++;
    const session = {};
    try {
      // A stream closed without a resume is kept for one grace (and a second, for a resume
      // racing the cancel), then dropped.
      session.store = new StreamStore({
        keepLost: Math.max(1000, 2 * resumeGrace),
        onResume: (ids) => {
          for (const id of ids) session.client.streamResumed(id);
        },
      });
      session.transport = new this.#Transport({
        sessionIdGenerator: this.#newSessionId,
        eventStore: session.store,
        onsessioninitialized: (id) => {
          this.#sessions.set(id, session);
          servers.named(session, id);
        },
      });
      try {
        await servers.open(session, { streamableHttp: true, resumeGrace, ...(sessionTtl > 0 ? { idleTtl: sessionTtl } : {}) });
      } catch (error) {
        return jsonError(res, 502, -32000, `Bad Gateway: could not start the server process: ${error.message}`);
      }
      const { transport } = session;
      const disconnect = transport.onclose;
      transport.onclose = () => {
        if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
        session.store.clear();
        disconnect?.();
        servers.closed(session);
      };
      await transport.start();
      await exchange(session, req, res, body, servers);
    } finally {
      this.#opening--;
      servers.opened(session);
    }
  }
}
