// The configuration of `mcp-cancel bridge`: its command line (the flags, their defaults, the
// --help text) read into the settings of one mode, or the usage problem that stops it. Every
// check of a flag's value is here and runs before anything starts, so a mistyped command
// line exits 2 with nothing spawned and nothing listening. The only environment it reads is
// the token's variable.

import { parseArgs } from "node:util";

import { DEFAULT_MAX_BODY, DEFAULT_REQUEST_TIMEOUT, isLoopback, MIN_TOKEN_LENGTH, normalizeOrigin, servedHostnames, TOKEN_VARIABLE } from "./gate.js";

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

/** The --help text, also printed after a usage problem. */
export const USAGE = `usage:
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

/** The flags, as `parseArgs` reads them. */
const FLAGS = {
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
};

/** The options only `--stdio` takes (who may reach the child, how much, and its session ids). */
const STDIO_ONLY = ["port", "host", "allow-host", "allow-origin", "auth-token", "max-body", "max-sessions", "max-requests", "request-timeout", "resume-grace", "session-ttl", "instance", "child-per-session"];

/**
 * @typedef {object} EndpointSettings the settings of `--stdio`'s HTTP endpoint
 * @property {number} port the port to listen on (0: any)
 * @property {string} host the address to listen on
 * @property {string[]} hostnames the Host names answered (gate.js)
 * @property {string[]} origins the Origins admitted, normalized
 * @property {string | undefined} token the bearer token required, if any
 * @property {number} maxBody the largest request body, bytes
 * @property {number} maxSessions the most sessions at once (children still ending included)
 * @property {number} maxRequests the most 2026-07-28 requests in flight at once
 * @property {number} requestTimeout the time a client has to send a whole request, ms
 * @property {number} resumeGrace how long a closed stream waits for a resume, ms
 * @property {number} sessionTtl a silent session's time to live, ms (0: never)
 * @property {string | undefined} instance the prefix of every session id issued, if any
 */

/**
 * @typedef {object} Config the bridge's configuration, one mode's
 * @property {"http" | "stdio"} mode `--http` (stdio in, HTTP out) or `--stdio` (HTTP in, a child out)
 * @property {{ timeout?: number, maxTotalTimeout?: number }} relayOptions the relay's deadlines, ms
 * @property {boolean} verbose whether every cancellation event goes to stderr
 * @property {URL} [url] `--http`: the server
 * @property {Record<string, string>} [headers] `--http`: the headers sent with every request
 * @property {string} [command] `--stdio`: the child's command line, for a shell
 * @property {boolean} [perSession] `--stdio`: a child per session (--child-per-session)
 * @property {EndpointSettings} [endpoint] `--stdio`: the HTTP endpoint's settings
 */

/**
 * Reads the command line after `bridge`. A problem is reported in the order the flags are
 * checked: unknown flags, the mode, the deadlines, then the mode's own flags.
 *
 * @param {string[]} args
 * @returns {{ help: true } | { problem: string } | Config}
 */
export function readConfig(args) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return { problem: error.message };
  }
  if (parsed.help) return { help: true };
  if ((parsed.http === undefined) === (parsed.stdio === undefined)) return { problem: "give exactly one of --http <url> and --stdio <command>" };
  const relayOptions = {};
  for (const [flag, option] of [
    ["timeout", "timeout"],
    ["max-total-timeout", "maxTotalTimeout"],
  ]) {
    if (parsed[flag] === undefined) continue;
    const ms = Number(parsed[flag]);
    if (!Number.isFinite(ms) || ms <= 0) return { problem: `--${flag} must be a number of milliseconds, got "${parsed[flag]}"` };
    relayOptions[option] = ms;
  }
  const common = { relayOptions, verbose: parsed.verbose === true };
  const mode = parsed.http !== undefined ? httpMode(parsed) : stdioMode(parsed);
  return typeof mode === "string" ? { problem: mode } : { ...common, ...mode };
}

/** `--http`'s server and headers, or a usage problem (a string). */
function httpMode(parsed) {
  let url;
  try {
    url = new URL(parsed.http);
  } catch {
    return `--http: not a URL: "${parsed.http}"`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `--http: not an http(s) URL: "${parsed.http}"`;
  const headers = {};
  for (const header of parsed.header ?? []) {
    const colon = header.indexOf(":");
    if (colon <= 0) return `--header must be "Name: value", got "${header}"`;
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  const misplaced = STDIO_ONLY.find((flag) => parsed[flag] !== undefined);
  if (misplaced !== undefined) return `--${misplaced} is for --stdio`;
  return { mode: "http", url, headers };
}

/** `--stdio`'s command and endpoint, or a usage problem (a string). */
function stdioMode(parsed) {
  if ((parsed.header ?? []).length > 0) return "--header is for --http";
  const command = parsed.stdio.trim();
  if (command === "") return "--stdio: the command is empty";
  const endpoint = endpointSettings(parsed);
  if (typeof endpoint === "string") return endpoint;
  return { mode: "stdio", command, perSession: parsed["child-per-session"] === true, endpoint };
}

/**
 * The `--stdio` endpoint's settings from the command line, or a usage problem (a string).
 * Listening on a non-loopback address without a token is refused.
 *
 * @returns {EndpointSettings | string}
 */
function endpointSettings(parsed) {
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
