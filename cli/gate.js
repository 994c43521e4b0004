// The front door of `mcp-cancel bridge --stdio`: what an HTTP request must pass before
// anything of it reaches the relay or the child process.
//
//   1. Host    the SDK's hostHeaderValidation: 403 unless the Host header's hostname is one
//              the bridge serves (its listen address, localhost, 127.0.0.1, [::1], and each
//              --allow-host). DNS rebinding: a page of attacker.example that resolved to
//              127.0.0.1 still sends `Host: attacker.example`.
//   2. Origin  403 when an Origin header is present and not allowed (--allow-origin): the
//              Streamable HTTP transport's "Security Warning", every revision since
//              2025-03-26 ("Servers MUST validate the Origin header … If the Origin header is
//              present and invalid, servers MUST respond with HTTP 403 Forbidden", the 403
//              since 2025-06-18). An allowed origin also gets CORS headers (the cors
//              package), so a browser app can read the answers.
//   3. Token   with --auth-token (or $MCP_CANCEL_AUTH_TOKEN): 401 unless the request carries
//              `Authorization: Bearer <token>`, compared in constant time.
//   4. Body    a POST body over --max-body bytes gets 413 and is never held: a Content-Length
//              over it is refused before anything is read, a longer stream where it passes
//              the limit (raw-body); the rest is read and dropped, up to 1 MiB or 2 s,
//              then the connection is cut.
//
// The session cap (503) is the bridge's: it knows its sessions. Slow clients are Node's own
// server limits (headersTimeout, requestTimeout), set by `serverOptions`.

import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";

import { hostHeaderValidation } from "@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js";
import cors from "cors";
import getRawBody from "raw-body";

/** The default bound on a request body, in bytes (4 MiB: the MCP SDKs' own default). */
export const DEFAULT_MAX_BODY = 4 * 1024 * 1024;
/** The default time a client has to send a whole request (headers and body), in ms. */
export const DEFAULT_REQUEST_TIMEOUT = 30_000;
/** The shortest bearer token accepted, in characters. */
export const MIN_TOKEN_LENGTH = 16;
/** The environment variable that may hold the bearer token (it stays out of `ps`). */
export const TOKEN_VARIABLE = "MCP_CANCEL_AUTH_TOKEN";

/**
 * Whether `host` (a --host value) is a loopback address or `localhost`.
 *
 * @param {string} host
 * @returns {boolean}
 */
export function isLoopback(host) {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || /^::ffff:127\./.test(bare);
  return false;
}

/**
 * An origin as the browser serializes it (`scheme://host[:port]`, lower case, no default
 * port), or undefined when `text` is not one. `"null"` stays `"null"`.
 *
 * @param {string} text
 * @returns {string | undefined}
 */
export function normalizeOrigin(text) {
  if (text === "null") return "null";
  try {
    const url = new URL(text);
    if (url.origin === "null" || url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "") return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * The hostnames a bridge listening on `host` answers to: its listen address, the loopback
 * names (a rebinding page cannot make a browser send them: its Host is its own name), and
 * `extra` (--allow-host). IPv6 addresses in brackets, as the URL parser gives a hostname.
 *
 * @param {string} host the listen address
 * @param {string[]} extra
 * @returns {string[]}
 */
export function servedHostnames(host, extra) {
  const bracket = (name) => (isIP(name) === 6 ? `[${name}]` : name.toLowerCase());
  const names = new Set(["localhost", "127.0.0.1", "[::1]", bracket(host.replace(/^\[|\]$/g, ""))]);
  for (const name of extra) names.add(bracket(name.replace(/^\[|\]$/g, "")));
  // A wildcard listen address is not a name any client uses.
  names.delete("0.0.0.0");
  names.delete("[::]");
  return [...names];
}

/** A JSON-RPC error body (`id: null`, with the error's `data` when given) with an HTTP status, as the SDK's transports answer. */
export function jsonError(res, status, code, message, headers = {}, data = undefined) {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id: null }));
}

/**
 * The request listener of the bridge's `http.Server`: checks 1–3 on every request, in that
 * order, then `handle(req, res, readJsonBody)`, where `readJsonBody()` is check 4.
 *
 * The checks are connect-style middleware (the SDK's `hostHeaderValidation`, the `cors`
 * package, the origin and token checks here), called in a row; no framework in between:
 * express's per-request work — its router, a new prototype set on each `req` and `res` —
 * and raw-body's iconv-lite decoding would be the largest costs of the bridge's own code
 * (without them its CPU per call is a fifth to two fifths lower, by load).
 * The SDK's host check answers through the one express method it uses,
 * `res.status(n).json()` (see {@link refusal}).
 *
 * @param {object} options
 * @param {string[]} options.hostnames from {@link servedHostnames}
 * @param {string[]} options.origins allowed origins, normalized ({@link normalizeOrigin})
 * @param {string | undefined} options.token the bearer token, or undefined for none
 * @param {number} options.maxBody bytes
 * @param {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, readJsonBody: () => Promise<{ answered: boolean, body?: unknown }>) => Promise<void>} options.handle
 * @param {(text: string) => void} options.say diagnostics (stderr)
 * @returns {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void}
 */
export function gate({ hostnames, origins, token, maxBody, handle, say }) {
  const checkHost = hostHeaderValidation(hostnames);
  const allowed = new Set(origins);
  const withCors =
    allowed.size === 0
      ? undefined
      : cors({
          origin: [...allowed],
          methods: ["GET", "POST", "DELETE"],
          allowedHeaders: ["Content-Type", "Accept", "Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID"],
          exposedHeaders: ["Mcp-Session-Id", "Mcp-Protocol-Version"],
          maxAge: 600,
        });
  const expected = token === undefined ? undefined : digest(token);

  function pass(req, res) {
    handle(req, res, () => readJsonBody(req, res, maxBody)).catch((error) => {
      say(`error: ${error.message}`);
      jsonError(res, 500, -32603, "Internal error");
    });
  }
  function checkToken(req, res) {
    if (expected !== undefined) {
      const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "");
      if (match === null || !timingSafeEqual(digest(match[1]), expected)) {
        return jsonError(res, 401, -32000, "Unauthorized: send Authorization: Bearer <token>", { "www-authenticate": 'Bearer realm="mcp-cancel bridge"' });
      }
    }
    pass(req, res);
  }
  function checkOrigin(req, res) {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(normalizeOrigin(origin) ?? "")) {
      return jsonError(res, 403, -32000, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed (--allow-origin)`);
    }
    // cors answers a preflight itself; it calls on for anything else.
    if (withCors !== undefined) return withCors(req, res, () => checkToken(req, res));
    checkToken(req, res);
  }
  return (req, res) => {
    try {
      checkHost(req, refusal(res), () => checkOrigin(req, res));
    } catch (error) {
      // What express's final handler did for a check that threw: a 500, the bridge lives on.
      say(`error: ${error.message}`);
      jsonError(res, 500, -32603, "Internal error");
    }
  };
}

/**
 * What the SDK's `hostHeaderValidation` (written for express) answers through: its
 * `res.status(status).json(body)`, as express sends it (JSON, UTF-8).
 *
 * @param {import("node:http").ServerResponse} res
 */
function refusal(res) {
  return {
    status: (status) => ({
      json: (body) => {
        if (res.headersSent) return;
        res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(body));
      },
    }),
  };
}

/**
 * Reads a POST body of at most `maxBody` bytes and parses it as JSON (UTF-8, a leading BOM
 * dropped). Answers the request itself (413, or 400 with -32700) and resolves with
 * `{ answered: true }` when it cannot; otherwise `{ answered: false, body }`.
 */
async function readJsonBody(req, res, maxBody) {
  let bytes;
  try {
    // As bytes: raw-body's `encoding` option decodes through iconv-lite's stream decoder,
    // which costs more than the Buffer's own UTF-8 decoding (and does the same, BOM aside).
    bytes = await getRawBody(req, { length: req.headers["content-length"], limit: maxBody });
  } catch (error) {
    if (error.type === "entity.too.large") {
      jsonError(res, 413, -32000, `Payload Too Large: a request body must not exceed ${maxBody} bytes (--max-body)`);
      discardRest(req);
      return { answered: true };
    }
    jsonError(res, 400, -32700, `Parse error: ${error.message}`, { connection: "close" });
    return { answered: true };
  }
  const text = bytes.toString("utf8");
  try {
    return { answered: false, body: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch {
    jsonError(res, 400, -32700, "Parse error: the body is not JSON");
    return { answered: true };
  }
}

/** How long, in ms, and how much, in bytes, of a refused body is read and dropped before the connection is cut. */
const LINGER_MS = 2000;
const LINGER_BYTES = 1024 * 1024;

/**
 * Reads and drops what is left of a refused request body (nothing is kept), so that the
 * client, still writing, reads the answer rather than a reset connection, and a small
 * remainder leaves the connection fit for its next request. A client still sending after
 * LINGER_MS, or LINGER_BYTES more, has its connection cut.
 */
function discardRest(req) {
  if (req.complete) return;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  let dropped = 0;
  req.on("data", (chunk) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  });
  const done = () => clearTimeout(timer);
  req.once("end", done);
  req.once("close", done);
}

/**
 * Node's own limits for the bridge's `http.Server` (`http.createServer(options, app)`): a
 * client that does not send its headers within 10 s (or `requestTimeout`, if shorter), or its
 * whole request within `requestTimeout` ms, gets 408 and its connection is closed. Response
 * streams (SSE) are not bounded by these: they count only the request.
 *
 * @param {number} requestTimeout ms
 */
export function serverOptions(requestTimeout) {
  return {
    requestTimeout,
    headersTimeout: Math.min(10_000, requestTimeout),
    // How often Node looks for connections past those limits (its default is 30 s).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(requestTimeout / 4))),
    keepAliveTimeout: 5000,
  };
}

function digest(text) {
  return createHash("sha256").update(text, "utf8").digest();
}
