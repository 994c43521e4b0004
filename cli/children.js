// `mcp-cancel bridge --stdio "<command>" --child-per-session`: one server process per HTTP
// session instead of one for all. Each session gets its own child and its own relay
// (createRelay) with that session as its only client, so the child's requests (elicitation,
// sampling, roots/list) have one client to go to, a cancel reaches only the child of the
// session that sent it, and the child's per-connection state (the client's capabilities,
// roots, log level, subscriptions) is that one client's. The relay maps ids and translates
// revisions as it does for a shared child.
//
// A session's child is started at the session's `initialize` and ended with the session:
// an HTTP DELETE, its time to live (--session-ttl, the core's `idleTtl`), its client
// vanishing (below), or the bridge's own end. Ending it is the MCP SDK's
// StdioClientTransport.close(): stdin closed, SIGTERM after 2 s if the process still runs,
// SIGKILL 2 s after that (the stdio transport's "Shutdown" in the lifecycle page, 2025-11-25).
// A child that exits on its own ends its session (the client gets 404 and opens a new one),
// not the bridge.
//
// A client vanished when a response stream of its session closed before its end and, one
// --resume-grace later, the session has no HTTP request open (no GET stream, no resume, no
// POST) and has sent none since. A live SDK client keeps its GET stream open or reopens it
// within the grace; a killed one does neither.
//
// 2026-07-28 requests have no session and carry their client's capabilities in each request,
// so there is no per-client state for a child to keep: they share one child, started at the
// first such request (and again at the next one after it ends). A child per request would
// start a process for every call; a child per TCP connection would follow the client's (or
// a proxy's) connection pooling, not its client.

import { createRelay } from "mcp-cancel";

/** The server side of `bridge --stdio --child-per-session`: the children of the sessions. */
export class SessionChildren {
  /** @type {Map<object, { relay: any, id: string | undefined }>} the child of each open session */
  #children = new Map();
  /** Children being ended (their processes may still run): they count against --max-sessions. */
  #ending = new Set();
  /** The relay of the 2026-07-28 requests' shared child, once started (a Promise). */
  #modern = undefined;
  /** A relay that is never started: it classifies HTTP requests by the core's static rules. */
  #classifier;
  #spawn;
  #relayOptions;
  #resumeGrace;
  #say;

  /**
   * @param {object} options
   * @param {() => import("@modelcontextprotocol/sdk/shared/transport.js").Transport} options.spawn
   *   a new stdio client transport for the command (started by the relay)
   * @param {object} options.relayOptions the relay's options (timeouts, onEvent, onError)
   * @param {number} options.resumeGrace --resume-grace, ms
   * @param {(text: string) => void} options.say a diagnostic line on stderr
   */
  constructor({ spawn, relayOptions, resumeGrace, say }) {
    this.#spawn = spawn;
    this.#relayOptions = relayOptions;
    this.#resumeGrace = resumeGrace;
    this.#say = say;
    this.#classifier = createRelay({ upstream: { start: async () => {}, send: async () => {}, close: async () => {} } });
    /** Never resolves: a child ending ends its session, not the bridge. */
    this.finished = new Promise(() => {});
  }

  /** Nothing to start: each child starts with its session. */
  async start() {}

  /** What an HTTP request is, by the core's rules (`relay.classifyHttp`). */
  classify(request) {
    return this.#classifier.classifyHttp(request);
  }

  /** Children still ending (their sessions closed). */
  ending() {
    return this.#ending.size;
  }

  /**
   * Starts the child of a session being opened and connects the session's transport to its
   * relay (`session.client`). Rejects when the process cannot be started.
   */
  async open(session, connectOptions) {
    const child = { relay: undefined, id: undefined };
    const onEvent = this.#relayOptions.onEvent;
    child.relay = createRelay({
      upstream: this.#spawn(),
      ...this.#relayOptions,
      ...(onEvent === undefined ? {} : { onEvent: (event) => onEvent({ ...event, session: child.id }) }),
      onUpstreamClose: () => this.#childExited(session, child),
    });
    this.#children.set(session, child);
    try {
      await child.relay.start();
    } catch (error) {
      this.#children.delete(session);
      await child.relay.close().catch(() => {});
      throw error;
    }
    session.client = child.relay.connect(session.transport, connectOptions);
  }

  /** The session got its id (its initialize was accepted). */
  named(session, id) {
    const child = this.#children.get(session);
    if (child !== undefined) child.id = id;
  }

  /** The session's initialize exchange is over: a session the SDK did not open ends its child. */
  opened(session) {
    if (session.transport?.sessionId === undefined) this.closed(session);
  }

  /** The session's transport closed (DELETE, time to live, the bridge's end): its child ends. */
  closed(session) {
    const child = this.#children.get(session);
    if (child === undefined) return;
    this.#children.delete(session);
    const ended = child.relay
      .close()
      .catch(() => {})
      .finally(() => this.#ending.delete(ended));
    this.#ending.add(ended);
  }

  /**
   * A response stream of the session closed before its end: unless the client is heard from
   * within --resume-grace of the last such close (a request, a resume, an open GET stream),
   * it vanished, and its session ends. The check comes VANISHED_AFTER_GRACE_MS after the
   * grace, so that the core's cancels of the requests those streams carried (at the grace,
   * with their reason) go first.
   */
  lost(session) {
    const at = performance.now();
    clearTimeout(session.vanishing);
    session.vanishing = setTimeout(() => {
      if (!this.#children.has(session) || session.open > 0 || session.lastExchange > at) return;
      this.#say(`the client of session ${session.transport.sessionId} vanished (no request open ${this.#resumeGrace} ms after a stream closed): the session and its server process end`);
      session.transport.close().catch(() => {});
    }, this.#resumeGrace + VANISHED_AFTER_GRACE_MS);
    session.vanishing.unref?.();
  }

  /** The child of the 2026-07-28 requests: its relay, started (and handshaken by the caller). */
  modern() {
    if (this.#modern !== undefined) return this.#modern;
    const forget = () => {
      if (this.#modern === started) this.#modern = undefined;
    };
    const relay = createRelay({
      upstream: this.#spawn(),
      ...this.#relayOptions,
      onUpstreamClose: () => {
        this.#say("the server process of the 2026-07-28 requests ended: every request in flight was answered with an error; the next one starts another");
        forget();
        relay.close().catch(() => {});
      },
    });
    const started = relay.start().then(() => relay);
    started.catch(() => {
      forget();
      relay.close().catch(() => {});
    });
    this.#modern = started;
    return started;
  }

  /** Ends every child (the bridge's end); resolves once they are all ended. */
  async close() {
    for (const session of [...this.#children.keys()]) this.closed(session);
    const modern = this.#modern;
    this.#modern = undefined;
    await Promise.allSettled([...this.#ending, modern?.then((relay) => relay.close())]);
    await this.#classifier.close().catch(() => {});
  }

  /**
   * The child of `session` exited on its own: the relay has answered its requests in flight
   * with an error; once those answers are written on the session's streams, the session ends
   * (404 from then on: the client opens a new session, and gets a new child).
   */
  #childExited(session, child) {
    if (this.#children.get(session) !== child) return;
    this.#say(`the server process of session ${child.id ?? "(opening)"} ended: its requests in flight were answered with an error, the session ends`);
    setTimeout(() => session.transport.close().catch(() => {}), ANSWERS_WRITTEN_MS).unref?.();
  }
}

/** How long after --resume-grace a session is judged vanished, ms (see `lost`). */
const VANISHED_AFTER_GRACE_MS = 100;

/**
 * How long a session whose child exited stays open, ms: the SDK transport writes a message
 * after an await of its event store, and its close() drops what is not written yet.
 */
const ANSWERS_WRITTEN_MS = 100;
