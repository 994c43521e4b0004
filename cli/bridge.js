// `mcp-cancel bridge`: a cancellation-correct MCP bridge on the relay (createRelay) and the
// official MCP SDK transports.
//
//   mcp-cancel bridge --http <url>          stdio in (this process), Streamable HTTP out
//   mcp-cancel bridge --stdio "<command>"   Streamable HTTP in (any number of clients, 2025-era
//                                           in sessions and 2026-07-28 without), one child
//                                           process out, shared by all of them; with
//                                           --child-per-session one per session
//                                           (cli/children.js)
//
// Each side keeps its revision's cancellation rules: a stdio client's notifications/cancelled
// reaches a 2026-07-28 HTTP server as a closed request stream, ids of many HTTP clients never
// collide on the shared child, late answers are dropped, a client that goes away has its
// requests cancelled upstream. Diagnostics go to stderr; stdout belongs to MCP in --http mode.

import { randomUUID } from "node:crypto";
import http from "node:http";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

import { createRelay } from "mcp-cancel";
import {
  DEFAULT_MAX_BODY,
  DEFAULT_REQUEST_TIMEOUT,
  gate,
  isLoopback,
  jsonError,
  MIN_TOKEN_LENGTH,
  normalizeOrigin,
  serverOptions,
  servedHostnames,
  TOKEN_VARIABLE,
} from "./gate.js";
import { SessionChildren } from "./children.js";
import { StreamStore } from "./resume.js";

/** Who the bridge is, in the handshake it makes with the child itself (for 2026-07-28 clients). */
const CLIENT_INFO = { name: "mcp-cancel bridge", version: createRequire(import.meta.url)("./package.json").version };

/** The default cap on HTTP sessions at once (--max-sessions). */
const DEFAULT_MAX_SESSIONS = 1000;
/**
 * The default cap on 2026-07-28 requests in flight at once (--max-requests): each holds a
 * response stream and a client of the relay until it is answered, with no session to count.
 */
const DEFAULT_MAX_REQUESTS = 1000;
/**
 * The default resume grace (--resume-grace), ms: how long a request whose response stream
 * closed waits for its client to resume the stream before it is cancelled upstream. The MCP
 * SDK 1.x client resumes after 1 s, then 1.5 s (its default backoff, two retries); 10 s
 * leaves room for a slow network and costs at most 10 s of a vanished client's work.
 */
const DEFAULT_RESUME_GRACE = 10_000;
/**
 * The default session time to live (--session-ttl), ms: a session with no request for an
 * hour is ended. A request in flight does not keep its session alive (a frozen client's
 * stream looks open), so this is also the longest call a client may wait for without
 * sending anything else.
 */
const DEFAULT_SESSION_TTL = 3_600_000;

/**
 * What an instance name may be (--instance): it begins every session id the instance issues
 * (`<name>.<uuid>`), so it must be safe in an `Mcp-Session-Id` header (visible ASCII) and in a
 * load balancer's rule (an nginx `map` regex, a cookie, a log): letters, digits, `_`, `-`.
 */
const INSTANCE_NAME = /^[A-Za-z0-9_-]{1,32}$/;

const USAGE = `usage:
  mcp-cancel bridge --http <url> [--header "Name: value"]... [options]
      stdio in (this process's stdin/stdout), Streamable HTTP out to <url>
  mcp-cancel bridge --stdio "<command>" [--port 3000] [--host 127.0.0.1] [options]
      Streamable HTTP in (http://<host>:<port>/mcp, any number of clients: 2025-03-26 ..
      2025-11-25 in sessions, 2026-07-28 without), the command's stdio out (one child
      process, shared; or one per session with --child-per-session)

options:
  --timeout <ms>             cancel a request upstream (and answer its client -32001) after <ms>
  --max-total-timeout <ms>   the same, a bound on the whole request (neither restarts on
                             progress; the earlier deadline wins)
  --verbose                  print every cancellation event to stderr (JSON lines)
  --help                     this text

--stdio only (who may reach the child process):
  --allow-host <name>        also answer requests whose Host is <name> (a name the bridge is
                             reached by, e.g. through a load balancer); repeatable. Served
                             by default: the --host address, localhost, 127.0.0.1, [::1]
  --allow-origin <origin>    admit a browser app from <origin> (e.g. http://localhost:5173),
                             with CORS; repeatable. Any other Origin gets 403
  --auth-token <token>       require "Authorization: Bearer <token>" (401 otherwise); at least
                             ${MIN_TOKEN_LENGTH} characters. Or set $${TOKEN_VARIABLE}, which stays out of ps.
                             Required when --host is not a loopback address
  --max-body <bytes>         the largest request body (default ${DEFAULT_MAX_BODY}, 4 MiB); larger: 413
  --max-sessions <n>         the most sessions at once (default ${DEFAULT_MAX_SESSIONS}); beyond: 503
  --max-requests <n>         the most 2026-07-28 requests in flight at once (they have no
                             session; default ${DEFAULT_MAX_REQUESTS}); beyond: 503, nothing forwarded
  --request-timeout <ms>     the time a client has to send a whole request (default
                             ${DEFAULT_REQUEST_TIMEOUT}); slower: 408 and the connection closes

--stdio, clients that vanish (killed, asleep) without a cancel or a DELETE:
  --resume-grace <ms>        a request whose response stream closed is cancelled upstream
                             unless its client resumes the stream (GET with Last-Event-ID)
                             within <ms> (default ${DEFAULT_RESUME_GRACE}; 0: at once)
  --session-ttl <ms>         a session with no request for <ms> is ended (404 from then on),
                             its requests in flight answered with an error and cancelled
                             upstream (default ${DEFAULT_SESSION_TTL}, an hour; 0: never). Keep it above
                             your longest call: a call in flight does not keep a session alive

--stdio, one server process per session:
  --child-per-session        run the command once per session instead of once for all: each
                             session's process keeps that client's state (its capabilities,
                             roots, log level, subscriptions) and sends its requests
                             (elicitation, sampling, roots/list) to that client only. Started
                             at the session's initialize; ended with the session (DELETE,
                             --session-ttl, or its client vanished: a stream of it closed and
                             --resume-grace later it has no request open and has sent none):
                             stdin closed, SIGTERM 2 s later, SIGKILL 2 s after that. At most
                             --max-sessions processes at once, those still ending included.
                             2026-07-28 requests (no session, no per-client state) share one
                             process, started at the first. A process that exits ends its
                             session (404: the client opens a new one), not the bridge

--stdio behind a load balancer (several bridges, one name each):
  --instance <name>          begin every session id this bridge issues with "<name>." (1-32 of
                             A-Z a-z 0-9 _ -), so that a load balancer in front of several
                             bridges sends a session's later requests, its cancels included, to
                             the one that holds it (e.g. an nginx map on $http_mcp_session_id)

Exit status: 0 when the client side ends, 1 when the server side fails or ends (the shared
child process; with --child-per-session a process's end is its session's), 2 on a usage error.
`;

/** Exit statuses. */
const OK = 0;
const FAILED = 1;
const USAGE_ERROR = 2;

/**
 * Runs the bridge until its client side ends (stdin closes, or SIGINT/SIGTERM) or its server
 * side fails.
 *
 * @param {string[]} args the command line after `bridge`
 * @returns {Promise<number>} the exit status: 0, 1 (the server side failed or ended), 2 (usage)
 */
export async function main(args) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        http: { type: "string" },
        stdio: { type: "string" },
        header: { type: "string", multiple: true },
        port: { type: "string" },
        host: { type: "string" },
        timeout: { type: "string" },
        "max-total-timeout": { type: "string" },
        "allow-host": { type: "string", multiple: true },
        "allow-origin": { type: "string", multiple: true },
        "auth-token": { type: "string" },
        "max-body": { type: "string" },
        "max-sessions": { type: "string" },
        "max-requests": { type: "string" },
        "request-timeout": { type: "string" },
        "resume-grace": { type: "string" },
        "session-ttl": { type: "string" },
        instance: { type: "string" },
        "child-per-session": { type: "boolean" },
        verbose: { type: "boolean" },
        help: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usage(error.message);
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return OK;
  }
  if ((parsed.http === undefined) === (parsed.stdio === undefined)) return usage("give exactly one of --http <url> and --stdio <command>");
  const relayOptions = {};
  for (const [flag, option] of [
    ["timeout", "timeout"],
    ["max-total-timeout", "maxTotalTimeout"],
  ]) {
    if (parsed[flag] === undefined) continue;
    const ms = Number(parsed[flag]);
    if (!Number.isFinite(ms) || ms <= 0) return usage(`--${flag} must be a number of milliseconds, got "${parsed[flag]}"`);
    relayOptions[option] = ms;
  }
  if (parsed.verbose) relayOptions.onEvent = (event) => process.stderr.write(`${JSON.stringify(event)}\n`);
  relayOptions.onError = (error) => say(`error: ${error.message}`);
  return parsed.http !== undefined ? httpOut(parsed, relayOptions) : stdioOut(parsed, relayOptions);
}

function usage(problem) {
  process.stderr.write(`mcp-cancel bridge: ${problem}\n\n${USAGE}`);
  return USAGE_ERROR;
}

function say(text) {
  process.stderr.write(`mcp-cancel bridge: ${text}\n`);
}

/** stdio in, Streamable HTTP out. */
async function httpOut(parsed, relayOptions) {
  let url;
  try {
    url = new URL(parsed.http);
  } catch {
    return usage(`--http: not a URL: "${parsed.http}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return usage(`--http: not an http(s) URL: "${parsed.http}"`);
  const headers = {};
  for (const header of parsed.header ?? []) {
    const colon = header.indexOf(":");
    if (colon <= 0) return usage(`--header must be "Name: value", got "${header}"`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const misplaced = STDIO_ONLY.find((flag) => parsed[flag] !== undefined);
  if (misplaced !== undefined) return usage(`--${misplaced} is for --stdio`);

  // The SDK 2.x client transport: per-request streams, so a cancel on a 2026-07-28 server
  // is closing the request's stream; it speaks the 2025 revisions too.
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  const upstream = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const { relay, finished, done } = relayTo(upstream, relayOptions, `the connection to ${url.href} closed`);
  await relay.start();
  const downstream = new StdioServerTransport();
  relay.connect(downstream);
  await downstream.start();
  say(`relaying stdio ↔ ${url.href}`);
  // The client side ends with stdin: its requests in flight are cancelled upstream.
  process.stdin.once("end", () => done(OK));
  process.stdin.once("close", () => done(OK));
  const status = await Promise.race([finished, clientSideSignal()]);
  await relay.close().catch(() => {});
  return status;
}

/** The options only `--stdio` takes (who may reach the child, how much, and its session ids). */
const STDIO_ONLY = ["port", "host", "allow-host", "allow-origin", "auth-token", "max-body", "max-sessions", "max-requests", "request-timeout", "resume-grace", "session-ttl", "instance", "child-per-session"];

/**
 * The `--stdio` front door's settings from the command line, or a usage problem (a string).
 * Listening on a non-loopback address without a token is refused.
 */
function frontDoor(parsed) {
  const port = parsed.port === undefined ? 3000 : Number(parsed.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return `--port must be a port number, got "${parsed.port}"`;
  const host = parsed.host ?? "127.0.0.1";
  const origins = [];
  for (const origin of parsed["allow-origin"] ?? []) {
    const normal = normalizeOrigin(origin);
    if (normal === undefined) return `--allow-origin must be an origin such as http://localhost:5173, got "${origin}"`;
    origins.push(normal);
  }
  const extraHosts = parsed["allow-host"] ?? [];
  for (const name of extraHosts) {
    if (name === "" || /[\s/:@]/.test(name.replace(/^\[[0-9a-fA-F:.]+\]$/, "x"))) return `--allow-host must be a host name without a port, got "${name}"`;
  }
  const token = parsed["auth-token"] ?? process.env[TOKEN_VARIABLE] ?? undefined;
  if (token !== undefined && (token.length < MIN_TOKEN_LENGTH || /\s/.test(token))) {
    return `the auth token (--auth-token or $${TOKEN_VARIABLE}) must be at least ${MIN_TOKEN_LENGTH} characters with no spaces (e.g. the output of: node -e "console.log(crypto.randomUUID())")`;
  }
  if (token === undefined && !isLoopback(host)) {
    return `refusing to listen on ${host}, which is not a loopback address, without a token: anyone who reaches it could drive the child process. Give --auth-token <token> (or $${TOKEN_VARIABLE}), or listen on 127.0.0.1`;
  }
  const bounded = (flag, fallback, min) => {
    if (parsed[flag] === undefined) return fallback;
    const n = parsed[flag].trim() === "" ? Number.NaN : Number(parsed[flag]);
    return Number.isSafeInteger(n) && n >= min ? n : `--${flag} must be an integer of at least ${min}, got "${parsed[flag]}"`;
  };
  const maxBody = bounded("max-body", DEFAULT_MAX_BODY, 1);
  const maxSessions = bounded("max-sessions", DEFAULT_MAX_SESSIONS, 1);
  const maxRequests = bounded("max-requests", DEFAULT_MAX_REQUESTS, 1);
  const requestTimeout = bounded("request-timeout", DEFAULT_REQUEST_TIMEOUT, 100);
  const resumeGrace = bounded("resume-grace", DEFAULT_RESUME_GRACE, 0);
  const sessionTtl = bounded("session-ttl", DEFAULT_SESSION_TTL, 0);
  for (const value of [maxBody, maxSessions, maxRequests, requestTimeout, resumeGrace, sessionTtl]) if (typeof value === "string") return value;
  if (sessionTtl > 0 && sessionTtl < 100) return `--session-ttl must be 0 (never) or at least 100 ms, got "${parsed["session-ttl"]}"`;
  const instance = parsed.instance;
  if (instance !== undefined && !INSTANCE_NAME.test(instance)) {
    return `--instance must be 1 to 32 letters, digits, "_" or "-" (it begins every session id, so it must be safe in a header and a load balancer's rule), got ${JSON.stringify(instance)}`;
  }
  return { port, host, hostnames: servedHostnames(host, extraHosts), origins, token, maxBody, maxSessions, maxRequests, requestTimeout, resumeGrace, sessionTtl, instance };
}

/**
 * Streamable HTTP in, a child process's stdio out: one child shared by every HTTP client, or
 * one per session with --child-per-session (cli/children.js).
 */
async function stdioOut(parsed, relayOptions) {
  if ((parsed.header ?? []).length > 0) return usage("--header is for --http");
  const command = parsed.stdio.trim();
  if (command === "") return usage("--stdio: the command is empty");
  const door = frontDoor(parsed);
  if (typeof door === "string") return usage(door);

  const spawn = await childTransports(command);
  const perSession = parsed["child-per-session"] === true;
  const servers = perSession ? new SessionChildren({ spawn, relayOptions, resumeGrace: door.resumeGrace, say }) : sharedChild(spawn(), relayOptions);
  try {
    await servers.start();
  } catch (error) {
    say(`could not start "${command}": ${error.message}`);
    return FAILED;
  }
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");

  /**
   * The HTTP clients' sessions (2025 revisions: Mcp-Session-Id), each a client of a relay:
   * `{ transport, client, store }` (the SDK transport, the relay's handle, its StreamStore)
   * and what `exchange()` keeps of its HTTP requests.
   */
  const sessions = new Map();
  /** A new session id: a random UUID, after "<instance>." with --instance. */
  const newSessionId = door.instance === undefined ? randomUUID : () => `${door.instance}.${randomUUID()}`;
  /** Sessions being opened (an initialize in progress): they count against the cap. */
  let opening = 0;
  const serveModern = modernDoor(door, servers);
  async function handle(req, res, readJsonBody) {
    // "/mcp" as it nearly always comes; anything else through the URL parser ("/mcp?x", …).
    if (req.url !== "/mcp" && new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") return jsonError(res, 404, -32000, "Not found: the MCP endpoint is /mcp");
    const sessionId = req.headers["mcp-session-id"];
    const known = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    let body;
    if (req.method === "POST") {
      const read = await readJsonBody();
      if (read.answered) return;
      body = read.body;
    }
    // Which revision the request belongs to and whether it needs a session: the core's
    // answer (2025-era: a session, or initialize to open one; 2026-07-28: none).
    const entry = servers.classify({ method: req.method, headers: req.headers, body, serveModern: true });
    if (entry.entry === "modern") return serveModern(entry.version, req, res, body);
    if (entry.entry !== "session" && entry.entry !== "open-session") {
      return jsonError(res, entry.status ?? 400, entry.code ?? -32000, entry.message ?? "Bad Request", {}, entry.data);
    }
    if (known !== undefined) {
      // Heard from: its time to live starts again.
      known.client.heard();
      return exchange(known, req, res, body, servers);
    }
    if (typeof sessionId === "string") {
      // A session of another instance: the load balancer sent it to the wrong one.
      const owner = door.instance === undefined ? undefined : /^([A-Za-z0-9_-]{1,32})\./.exec(sessionId)?.[1];
      const elsewhere = owner !== undefined && owner !== door.instance ? ` (this is instance ${door.instance}; the session id names instance ${owner})` : "";
      return jsonError(res, 404, -32001, `Session not found${elsewhere}`);
    }
    // Children still ending count too: --max-sessions bounds the processes at once.
    if (sessions.size + opening + servers.ending() >= door.maxSessions) {
      return jsonError(res, 503, -32000, `Service Unavailable: this bridge holds its most sessions (${door.maxSessions}, --max-sessions)`, { "retry-after": "5" });
    }
    opening++;
    const session = {};
    try {
      // A stream closed without a resume is kept for one grace (and a second, for a resume
      // racing the cancel), then dropped.
      session.store = new StreamStore({
        keepLost: Math.max(1000, 2 * door.resumeGrace),
        onResume: (ids) => {
          for (const id of ids) session.client.streamResumed(id);
        },
      });
      session.transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: newSessionId,
        eventStore: session.store,
        onsessioninitialized: (id) => {
          sessions.set(id, session);
          servers.named(session, id);
        },
      });
      try {
        await servers.open(session, { streamableHttp: true, resumeGrace: door.resumeGrace, ...(door.sessionTtl > 0 ? { idleTtl: door.sessionTtl } : {}) });
      } catch (error) {
        return jsonError(res, 502, -32000, `Bad Gateway: could not start the server process: ${error.message}`);
      }
      const { transport } = session;
      const disconnect = transport.onclose;
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
        session.store.clear();
        disconnect?.();
        servers.closed(session);
      };
      await transport.start();
      await exchange(session, req, res, body, servers);
    } finally {
      opening--;
      servers.opened(session);
    }
  }

  const app = gate({ hostnames: door.hostnames, origins: door.origins, token: door.token, maxBody: door.maxBody, handle, say });
  const server = await listen(door, app);
  if (server === undefined) {
    await servers.close();
    return FAILED;
  }
  announce(door, server, command, perSession);
  const status = await Promise.race([servers.finished, clientSideSignal()]);
  for (const { transport } of sessions.values()) await transport.close().catch(() => {});
  server.closeAllConnections?.();
  await new Promise((resolve) => server.close(resolve));
  await servers.close();
  return status;
}

/**
 * A maker of stdio client transports for `command`, run as a shell would run it (quotes,
 * arguments), as `npx` users write it. The child gets this process's environment, as a
 * command run from this shell would; not the bridge's own token.
 */
async function childTransports(command) {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const shell = process.platform === "win32" ? { command: "cmd.exe", args: ["/d", "/s", "/c", command] } : { command: "/bin/sh", args: ["-c", `exec ${command}`] };
  const env = { ...process.env };
  delete env[TOKEN_VARIABLE];
  return () => new StdioClientTransport({ ...shell, env, stderr: "inherit" });
}

/**
 * The server side of `bridge --stdio` without --child-per-session: one child and its relay,
 * every session and every 2026-07-28 request a client of it; the child's end is the bridge's
 * (`finished`). cli/children.js is the same interface with a child per session.
 */
function sharedChild(upstream, relayOptions) {
  /** The session id of each client of the relay (its `link`), for the events. */
  const sessionOfLink = new Map();
  const onEvent = relayOptions.onEvent;
  const withSession =
    onEvent === undefined ? relayOptions : { ...relayOptions, onEvent: (event) => onEvent(event.link === undefined ? event : { ...event, session: sessionOfLink.get(event.link) }) };
  const { relay, finished } = relayTo(upstream, withSession, "the server process ended");
  return {
    finished,
    start: () => relay.start(),
    classify: (request) => relay.classifyHttp(request),
    ending: () => 0,
    open: async (session, connectOptions) => {
      session.client = relay.connect(session.transport, connectOptions);
    },
    named: (session, id) => sessionOfLink.set(session.client.link, id),
    opened: () => {},
    closed: (session) => sessionOfLink.delete(session.client.link),
    lost: () => {},
    modern: async () => relay,
    close: () => relay.close().catch(() => {}),
  };
}

/**
 * The handler of 2026-07-28 requests (and notifications): no session; the relay's client for
 * one lives as long as its response stream. Its `server/discover` is the relay's to answer,
 * from the handshake the relay makes with the child first when no 2025-era client has. Its
 * answer is made a 2026-07-28 one by the core (`relay.modernAnswer`); its response stream
 * closing before the answer is its cancel (`streamClosed`: the core sends the child's
 * revision's cancel). A notification is accepted (202) and not forwarded.
 */
function modernDoor(door, servers) {
  /** 2026-07-28 requests in flight (their response streams open): at most --max-requests. */
  let inFlight = 0;
  return async function serveModern(version, req, res, body) {
    if (body.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (inFlight >= door.maxRequests) {
      return jsonError(res, 503, -32000, `Service Unavailable: this bridge holds its most 2026-07-28 requests in flight (${door.maxRequests}, --max-requests)`, { "retry-after": "1" });
    }
    inFlight++;
    res.once("close", () => inFlight--);
    let relay;
    try {
      relay = await servers.modern();
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
  };
}

/**
 * One HTTP exchange of `session`: the SDK transport answers it; when its response stream
 * closes before its end (the client went away), the relay is told which requests it carried
 * (`streamClosed`: the core decides what that means: a cancel, a resume grace, or nothing)
 * and the server side that a stream was lost (`servers.lost`). A GET with Last-Event-ID
 * resumes a stream (the store tells the relay). `session.open` counts its exchanges open,
 * `session.lastExchange` is when the latest began (performance.now()).
 */
function exchange(session, req, res, body, servers) {
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

/** The HTTP server of `--stdio`, listening; undefined (said on stderr) when it cannot listen. */
async function listen(door, app) {
  const server = http.createServer(serverOptions(door.requestTimeout), app);
  try {
    await new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(door.port, door.host, resolve);
    });
    return server;
  } catch (error) {
    say(`cannot listen on ${door.host}:${door.port}: ${error.message}`);
    return undefined;
  }
}

/** What `--stdio` serves and how, on stderr (the tests read the "listening on" line). */
function announce(door, server, command, perSession) {
  const address = server.address();
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  say(`listening on http://${shown}:${address.port}/mcp, relaying to "${command}"${door.instance === undefined ? "" : `; instance ${door.instance} (session ids ${door.instance}.*)`}`);
  say(`answering Host ${door.hostnames.join(", ")}; Origin ${door.origins.length > 0 ? door.origins.join(", ") : "none (no --allow-origin)"}; ${door.token === undefined ? "no token" : "a bearer token required"}`);
  say(`a request whose stream closed is cancelled after ${door.resumeGrace} ms without a resume; ${door.sessionTtl > 0 ? `a session with no request for ${door.sessionTtl} ms is ended` : "sessions never expire"}`);
  if (perSession) say(`one server process per session (at most ${door.maxSessions}), started at its initialize and ended with it; 2026-07-28 requests share one, started at the first`);
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

/**
 * A relay to `upstream`; `finished` resolves with FAILED when the upstream ends (`ended` says
 * how, on stderr), or with what `done` is given.
 */
function relayTo(upstream, relayOptions, ended) {
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const relay = createRelay({
    upstream,
    ...relayOptions,
    onUpstreamClose: () => {
      say(`${ended}: every request in flight was answered with an error`);
      done(FAILED);
    },
  });
  return { relay, finished, done };
}

/** Resolves with OK at SIGINT/SIGTERM. */
function clientSideSignal() {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve(OK));
    process.once("SIGTERM", () => resolve(OK));
  });
}
