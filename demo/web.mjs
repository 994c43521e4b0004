#!/usr/bin/env node
// npm run demo:web — the browser demo: server-everything in `streamableHttp` mode, a wire
// tap in front of it, and the page in www/ (its script is the bundle www/dist/app.js that
// www/build.mjs builds: the MCP SDK client and mcp-cancel's browser build), all on
// 127.0.0.1. Prints the page's URL, then every JSON-RPC message that crosses the tap.
//
// Also a module: the browser tests start the same thing with `startDemoWeb({ port: 0 })`.
//
//   page  http://127.0.0.1:<port>/            www/ (index.html, style.css, dist/), /config.json
//   MCP   http://127.0.0.1:<mcp-port>/mcp      the wire tap: records every body, forwards to …
//         http://127.0.0.1:<random>/mcp        … server-everything (or `upstream`)
//
// The page and the MCP server are on different origins, as a browser client and a remote
// server are: server-everything's own CORS headers pass through the tap.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { createParser } from "eventsource-parser";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";

import { EVERYTHING } from "./everything.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const HOST = "127.0.0.1"; // loopback only, always
const START_TIMEOUT_MS = 20_000;

/**
 * server-everything listens with `app.listen(PORT)`: on every interface, and it reports
 * the port it was given, not the one it got. This preload makes a `listen(port)` bind
 * 127.0.0.1 only and prints the real port, so the demo can ask for port 0. It also ends
 * the server when the demo's process is gone (its IPC channel closes), however it ended.
 */
const LOOPBACK_PRELOAD = `data:text/javascript,${encodeURIComponent(`
import net from "node:net";
process.on("disconnect", () => process.exit(0));
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") args.splice(1, 0, "${HOST}");
  this.once("listening", () => process.stderr.write("[demo-web] listening on " + this.address().port + "\\n"));
  return listen.apply(this, args);
};
`)}`;

/**
 * @typedef {{ dir: "out" | "in", at: number, message: any, http: { method: string, status?: number } }} WireRecord
 *   `out`: a message the page POSTed (recorded when the tap has its whole body, before it
 *   is forwarded); `in`: a message the server sent (a JSON body or one SSE event).
 */

/**
 * Starts server-everything (unless `upstream` is given), the wire tap and the page server.
 *
 * @param {object} [options]
 * @param {number} [options.port] the page's port (0: any free port). Default 8080.
 * @param {number} [options.mcpPort] the tap's port, the MCP URL the page uses. Default 0.
 * @param {string} [options.upstream] an MCP endpoint on 127.0.0.1 to tap instead of starting server-everything
 * @param {(record: WireRecord) => void} [options.onWire] called with each wire record
 * @returns {Promise<{ pageUrl: string, serverUrl: string, upstreamUrl: string, wire: WireRecord[], serverOutput: () => string, close: () => Promise<void> }>}
 */
export async function startDemoWeb({ port = 8080, mcpPort = 0, upstream, onWire } = {}) {
  if (!existsSync(path.join(ROOT, "www/dist/app.js")) || !existsSync(path.join(ROOT, "www/dist/mcp_cancel_bg.wasm"))) {
    throw new Error("www/dist/ is missing: build the package and the page first (npm run build, or bash scripts/build.sh).");
  }
  const closers = [];
  const close = async () => {
    for (const fn of closers.reverse()) await fn().catch(() => {});
    closers.length = 0;
  };
  try {
    let serverOutput = () => "";
    if (upstream === undefined) {
      const everything = await startEverything();
      closers.push(everything.close);
      upstream = everything.url;
      serverOutput = everything.output;
    }
    const wire = [];
    const tap = await listen(wireTap(upstream, wire, onWire), mcpPort);
    closers.push(tap.close);
    const serverUrl = `http://${HOST}:${tap.port}/mcp`;
    const page = await listen(pageServer(serverUrl), port);
    closers.push(page.close);
    return { pageUrl: `http://${HOST}:${page.port}/`, serverUrl, upstreamUrl: upstream, wire, serverOutput, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** server-everything, `streamableHttp`, on 127.0.0.1 and a free port. */
function startEverything() {
  const child = spawn(process.execPath, ["--import", LOOPBACK_PRELOAD, EVERYTHING, "streamableHttp"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.channel?.unref(); // the channel only tells the child when we are gone
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  // Never leave it behind, even when this process ends without close().
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = async () => {
    process.off("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = async (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      await close();
      reject(new Error(`server-everything did not start: ${why}\n${output}`));
    };
    const timer = setTimeout(() => fail(`no port after ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    const onExit = (code, signal) => fail(`it exited (${signal ?? code})`);
    child.once("exit", onExit);
    child.stderr.on("data", function ready() {
      const match = /\[demo-web\] listening on (\d+)/.exec(output);
      if (!match || settled) return;
      settled = true;
      clearTimeout(timer);
      child.off("exit", onExit);
      child.stderr.off("data", ready);
      resolve({ url: `http://${HOST}:${match[1]}/mcp`, output: () => output, close });
    });
  });
}

/**
 * The wire tap: a reverse proxy to `upstream` (every path goes to its URL) that records
 * each JSON-RPC message in both directions. Transparent: headers (CORS among them), status
 * and SSE streams pass unchanged; the page closing a response closes the upstream one.
 */
function wireTap(upstream, wire, onWire) {
  const started = performance.now();
  const record = (dir, req, body, status) => {
    for (const message of Array.isArray(body) ? body : [body]) {
      const entry = { dir, at: performance.now() - started, message, http: { method: req.method, status } };
      wire.push(entry);
      onWire?.(entry);
    }
  };
  const app = express();
  app.disable("x-powered-by");
  // Buffer each body (JSON-RPC messages are small) to record it; it is written upstream below.
  app.use(express.raw({ type: () => true, limit: "8mb" }));
  app.use((req, _res, next) => {
    if (Buffer.isBuffer(req.body) && req.body.length > 0) {
      const body = parseJson(req.body.toString("utf8"));
      if (body !== undefined) record("out", req, body);
    }
    next();
  });
  app.use(
    createProxyMiddleware({
      target: upstream,
      ignorePath: true, // any path → the upstream URL itself
      changeOrigin: true,
      on: {
        proxyReq(proxyReq, req, res) {
          if (Buffer.isBuffer(req.body) && req.body.length > 0) {
            proxyReq.removeHeader("transfer-encoding");
            proxyReq.setHeader("Content-Length", req.body.length);
            proxyReq.write(req.body);
          }
          // The page closed its response early (a 2026-07-28 cancel): close upstream too.
          res.on("close", () => {
            if (!res.writableFinished) proxyReq.destroy();
          });
        },
        proxyRes(proxyRes, req) {
          const type = String(proxyRes.headers["content-type"] ?? "");
          const status = proxyRes.statusCode;
          const decoder = new TextDecoder();
          if (type.includes("text/event-stream")) {
            // eventsource-parser: an event without its closing blank line when the stream
            // ends is never dispatched (as the SSE spec says).
            const parser = createParser({
              onEvent: ({ data }) => {
                const message = parseJson(data);
                if (message !== undefined) record("in", req, message, status);
              },
            });
            proxyRes.on("data", (chunk) => parser.feed(decoder.decode(chunk, { stream: true })));
            proxyRes.on("end", () => parser.reset());
          } else if (type.includes("application/json")) {
            let text = "";
            proxyRes.on("data", (chunk) => (text += decoder.decode(chunk, { stream: true })));
            proxyRes.on("end", () => {
              const message = parseJson(text);
              if (message !== undefined) record("in", req, message, status);
            });
          }
        },
        error(error, _req, res) {
          // Upstream unreachable: a 502 the page can show (res is a socket for upgrades).
          if (res instanceof http.ServerResponse && !res.headersSent) {
            res.writeHead(502, { "Content-Type": "text/plain", "Access-Control-Allow-Origin": "*" });
            res.end(`The wire tap could not reach the MCP server at ${upstream}: ${error.message}`);
          } else {
            res.destroy?.();
          }
        },
      },
    }),
  );
  return app;
}

/**
 * The page: www/ — index.html, style.css and dist/ (the bundle, its source map and
 * mcp-cancel's .wasm, served as application/wasm) — and the MCP URL to use.
 */
function pageServer(serverUrl) {
  const app = express();
  app.disable("x-powered-by");
  app.get("/config.json", (_req, res) => res.json({ serverUrl }));
  app.use(express.static(path.join(ROOT, "www")));
  return app;
}

/** Listens on 127.0.0.1:`port`; `close()` also ends open connections (SSE streams). */
function listen(app, port) {
  const server = http.createServer(app);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, HOST, () => {
      server.off("error", reject);
      resolve({
        port: server.address().port,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One line per wire record, for the terminal. */
export function describeWire({ dir, at, message: m }) {
  const arrow = dir === "out" ? "page → server" : "server → page";
  const time = `${(at / 1000).toFixed(3).padStart(8)} s`;
  let what;
  if (m?.method === "notifications/cancelled") what = `notifications/cancelled  requestId ${JSON.stringify(m.params?.requestId)}${m.params?.reason === undefined ? "" : `, reason ${JSON.stringify(m.params.reason)}`}`;
  else if (m?.method === "notifications/progress") what = `notifications/progress   token ${JSON.stringify(m.params?.progressToken)}: ${m.params?.progress}${m.params?.total === undefined ? "" : `/${m.params.total}`}`;
  else if (m?.method !== undefined) what = `${m.method}${m.id === undefined ? "" : `  #${m.id}`}${m.method === "tools/call" ? `  ${m.params?.name} ${JSON.stringify(m.params?.arguments ?? {})}` : ""}`;
  else if (m?.error !== undefined) what = `error   #${m.id}: ${m.error.message} (${m.error.code})`;
  else what = `result  #${m?.id}`;
  return `${time}  ${arrow}  ${what}`;
}

async function main() {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8080" },
      "mcp-port": { type: "string", default: "0" },
      quiet: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(`npm run demo:web [-- options]

Starts server-everything (Streamable HTTP), a wire tap in front of it and the mcp-cancel
browser page, all on 127.0.0.1, and prints what crosses the wire.

  --port <n>       the page's port (default 8080; 0 = any free port)
  --mcp-port <n>   the MCP endpoint's port (the wire tap; default 0 = any free port)
  --quiet          do not print the wire
  -h, --help       this text`);
    return;
  }
  let demo;
  try {
    demo = await startDemoWeb({
      port: Number(values.port),
      mcpPort: Number(values["mcp-port"]),
      onWire: values.quiet ? undefined : (record) => console.log(describeWire(record)),
    });
  } catch (error) {
    if (error.code === "EADDRINUSE") console.error(`Port ${error.port} is in use: pass --port <another>, or --port 0 for any free port.`);
    else console.error(error.message);
    process.exitCode = 1;
    return;
  }
  console.log(`
mcp-cancel browser demo

  open       ${demo.pageUrl}
  MCP        ${demo.serverUrl}  (server-everything, Streamable HTTP, behind a wire tap)

Connect, pick trigger-long-running-operation, Run, then Cancel. Ctrl-C stops everything.
${values.quiet ? "" : "What crosses the wire:\n"}`);
  const stop = async () => {
    await demo.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
