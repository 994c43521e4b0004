// mcp-cancel in Cloudflare Workers, for real: the packed tarball, installed in a tiny project,
// bundled the way wrangler bundles a Worker (esbuild; conditions workerd, worker, browser; a
// `.wasm` import made an external module by wrangler's default "CompiledWasm" rule, below),
// served by workerd (npm `workerd`, the runtime wrangler and miniflare drive) on loopback.
//   - `import { CancellationSession } from "mcp-cancel"` with no init: the session checks
//     (track, cancel, the late response and progress dropped), under the `workerd` condition
//     and under Vercel's `edge-light` (whose entry imports `.wasm?module`);
//   - the default entry plus the `mcp-cancel/mcp_cancel_bg.wasm` subpath passed to `init()`;
//   - the hosts guide's Worker example (examples/worker.js), as printed;
//   - a Worker that is an MCP client (the SDK's Client and Streamable HTTP transport, through
//     guardTransport) aborts a call to a server in this process: the server receives exactly
//     one `notifications/cancelled` for it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { once } from "node:events";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as esbuild from "esbuild";
import { z } from "zod";

import { EXPECTED } from "./hosts/session-checks.mjs";
import { installTarball, packTarball, repo, sameAsRepo } from "./tarball.mjs";

const require = createRequire(import.meta.url);
// The `workerd` npm package: its main module names the platform binary (the optional
// dependency @cloudflare/workerd-<platform>, which ships it) and the newest compatibility date.
const workerd = require("workerd");

// wrangler's conditions (BUILD_CONDITIONS), and Vercel's Edge Runtime's.
const WRANGLER = ["workerd", "worker", "browser"];
const EDGE_LIGHT = ["edge-light", "worker", "browser"];

/**
 * wrangler's default module rule `{ type: "CompiledWasm", globs: ["**\/*.wasm", "**\/*.wasm?module"] }`
 * as an esbuild plugin, the way wrangler's module collector applies it: the `.wasm` is
 * resolved (through the package's "exports" for a bare specifier), copied next to the bundle
 * as `<sha1>-<name>.wasm`, and the import made external; workerd loads it as a `wasm` module,
 * whose default export is the compiled WebAssembly.Module.
 */
function compiledWasm(outDir, modules) {
  return {
    name: "compiled-wasm",
    setup(build) {
      build.onResolve({ filter: /\.wasm(\?module)?$/ }, async (args) => {
        if (args.pluginData?.compiledWasm) return undefined;
        const specifier = args.path.replace(/\?module$/, "");
        const resolved = await build.resolve(specifier, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { compiledWasm: true } });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        const bytes = await readFile(resolved.path);
        const name = `${createHash("sha1").update(bytes).digest("hex")}-${path.basename(resolved.path)}`;
        if (!modules.some((m) => m.name === name)) {
          modules.push({ name, file: path.join(outDir, name) });
          await writeFile(path.join(outDir, name), bytes);
        }
        return { path: `./${name}`, external: true };
      });
    },
  };
}

/** Bundles `entry` (a file of the project) as wrangler does; returns the bundle's modules and the project files it took in. */
async function bundleWorker(proj, outDir, entry, conditions) {
  await mkdir(outDir, { recursive: true });
  const modules = [];
  const result = await esbuild.build({
    entryPoints: [path.join(proj, entry)],
    absWorkingDir: proj,
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "neutral",
    mainFields: ["browser", "module", "main"],
    conditions,
    outfile: path.join(outDir, "worker.js"),
    plugins: [compiledWasm(outDir, modules)],
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  return { modules: [{ name: "worker.js", file: path.join(outDir, "worker.js"), esModule: true }, ...modules], inputs };
}

/**
 * A workerd config (Cap'n Proto text) serving each worker on its own loopback socket (port
 * 0: the port is reported on the control fd). Outbound fetch goes to a network service that
 * allows loopback ("local"); workerd's default "internet" allows only public addresses.
 */
function capnpConfig(dir, workers) {
  const q = (s) => JSON.stringify(s);
  const services = workers.map(
    (w) =>
      `(name = ${q(w.name)}, worker = (modules = [${w.modules
        .map((m) => `(name = ${q(m.name)}, ${m.esModule ? "esModule" : "wasm"} = embed ${q(path.relative(dir, m.file))})`)
        .join(", ")}], compatibilityDate = ${q(workerd.compatibilityDate)}, globalOutbound = "loopback"))`,
  );
  const sockets = workers.map((w) => `(name = ${q(w.name)}, address = "127.0.0.1:0", http = (), service = ${q(w.name)})`);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    ${[...services, '(name = "loopback", network = (allow = ["local", "private"]))'].join(",\n    ")}
  ],
  sockets = [
    ${sockets.join(",\n    ")}
  ],
);
`;
}

/** Starts workerd on `config`; resolves with each socket's port once all listen. */
async function startWorkerd(configFile, names) {
  const child = spawn(workerd.default, ["serve", configFile, "--control-fd=3"], { stdio: ["ignore", "pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (d) => (stderr += d));
  const ports = {};
  const listening = new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdio[3] });
    lines.on("line", (line) => {
      const message = JSON.parse(line);
      if (message.event === "listen") ports[message.socket] = message.port;
      if (names.every((n) => ports[n] !== undefined)) resolve(ports);
    });
    child.once("exit", (code, signal) => reject(new Error(`workerd exited (${code ?? signal}) before it listened:\n${stderr}`)));
  });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error(`workerd did not listen within 20 s:\n${stderr}`)), 20000).unref());
  await Promise.race([listening, timeout]);
  return {
    ports,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
    },
  };
}

/**
 * An MCP server on 127.0.0.1 (TypeScript SDK 1.x McpServer, Streamable HTTP, one session)
 * with `slow` ({ steps }: progress every 100 ms, honours its signal). Every JSON-RPC message
 * it receives is recorded in `received`; what its handler saw in `seen`.
 */
async function startSlowServer() {
  const received = [];
  const seen = { started: [], aborted: [], completed: [] };
  const server = new McpServer({ name: "slow-1x", version: "0.0.0" });
  server.registerTool("slow", { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    seen.started.push(extra.requestId);
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 100);
        extra.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
      if (extra.signal.aborted) {
        seen.aborted.push({ id: extra.requestId, reason: String(extra.signal.reason) });
        return { content: [{ type: "text", text: "aborted" }] };
      }
      const token = extra._meta?.progressToken;
      if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
    }
    seen.completed.push(extra.requestId);
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (req.method === "POST") {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        received.push(...(Array.isArray(body) ? body : [body]));
        await transport.handleRequest(req, res, body);
      } else {
        await transport.handleRequest(req, res);
      }
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    received,
    seen,
    close: async () => {
      await server.close().catch(() => {});
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}

async function getJson(url) {
  const response = await fetch(url, { signal: AbortSignal.timeout(20000) });
  assert.equal(response.status, 200, `${url}: HTTP ${response.status} ${await response.clone().text()}`);
  return response.json();
}

describe("Cloudflare Workers (workerd, from the packed tarball, bundled as wrangler bundles)", { timeout: 90000 }, () => {
  let tmp;
  let runtime;
  let mcp;
  const bundles = {};
  const notes = []; // set-up timings, printed by the first test (a suite's hook has no diagnostic())

  before(async () => {
    const started = performance.now();
    tmp = await mkdtemp(path.join(os.tmpdir(), "mcp-cancel-workers-"));
    const { tarball } = await packTarball(tmp);
    const proj = path.join(tmp, "proj");
    await cp(path.join(repo, "pkg-tests/workers"), path.join(proj, "workers"), { recursive: true });
    await cp(path.join(repo, "pkg-tests/hosts"), path.join(proj, "hosts"), { recursive: true });
    await cp(path.join(repo, "examples/worker.js"), path.join(proj, "workers/readme-example.js"));
    // The SDK the client Worker bundles, as a user installs it next to mcp-cancel.
    await installTarball(proj, tarball, [sameAsRepo("@modelcontextprotocol/sdk")]);
    const installed = performance.now();

    const out = path.join(tmp, "out");
    const workers = [
      { name: "workerd", entry: "workers/session-worker.js", conditions: WRANGLER },
      { name: "edge-light", entry: "workers/session-worker.js", conditions: EDGE_LIGHT },
      { name: "manual", entry: "workers/manual-worker.js", conditions: ["browser"] },
      { name: "client", entry: "workers/client-worker.js", conditions: WRANGLER },
      { name: "readme", entry: "workers/readme-example.js", conditions: WRANGLER },
    ];
    for (const w of workers) {
      bundles[w.name] = await bundleWorker(proj, path.join(out, w.name), w.entry, w.conditions);
      w.modules = bundles[w.name].modules;
    }
    const bundled = performance.now();
    const configFile = path.join(out, "config.capnp");
    await writeFile(configFile, capnpConfig(out, workers));
    runtime = await startWorkerd(configFile, workers.map((w) => w.name));
    mcp = await startSlowServer();
    const ms = (a, b) => `${Math.round(b - a)} ms`;
    notes.push(`workerd ${workerd.version} (${path.relative(repo, workerd.default)}), compatibility date ${workerd.compatibilityDate}, esbuild ${esbuild.version}`);
    notes.push(`pack + install ${ms(started, installed)}, ${workers.length} bundles ${ms(installed, bundled)}, workerd listening ${ms(bundled, performance.now())}`);
  });

  after(async () => {
    await runtime?.stop();
    await mcp?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const url = (name, query = "") => `http://127.0.0.1:${runtime.ports[name]}/${query}`;
  // The package's files a bundle took in, e.g. "js/worker.js".
  const packageFiles = (name) =>
    bundles[name].inputs.filter((f) => f.startsWith("node_modules/mcp-cancel/")).map((f) => f.slice("node_modules/mcp-cancel/".length)).sort();

  test("workerd condition: no init, the session tracks, cancels and drops the late response and progress", async (t) => {
    for (const note of notes) t.diagnostic(note);
    assert.ok(packageFiles("workerd").includes("js/worker.js"), `the workerd entry was bundled: ${packageFiles("workerd")}`);
    assert.ok(!packageFiles("workerd").includes("js/browser.js"));
    assert.deepEqual(bundles.workerd.modules.map((m) => m.name.replace(/^[0-9a-f]{40}-/, "<sha1>-")), ["worker.js", "<sha1>-mcp_cancel_bg.wasm"]);
    const body = await getJson(url("workerd"));
    assert.equal(body.ok, true, body.stack ?? body.error);
    assert.deepEqual(body.checks, EXPECTED);
    assert.deepEqual(body.exports, ["CancellationSession", "InvalidArgumentError", "McpCancelError", "UsageError", "createRelay", "guardTransport", "init"]);
    // A second request reuses the instantiated module.
    assert.deepEqual((await getJson(url("workerd"))).checks, EXPECTED);
  });

  test("edge-light condition (Vercel's Edge Runtime: the entry imports `.wasm?module`): the same, in workerd", async () => {
    assert.ok(packageFiles("edge-light").includes("js/edge-light.js"), `the edge-light entry was bundled: ${packageFiles("edge-light")}`);
    const body = await getJson(url("edge-light"));
    assert.equal(body.ok, true, body.stack ?? body.error);
    assert.deepEqual(body.checks, EXPECTED);
  });

  test("no condition (the default entry): `init()` with the `mcp-cancel/mcp_cancel_bg.wasm` subpath, compiled by the bundler", async () => {
    assert.ok(packageFiles("manual").includes("js/browser.js"), `the default entry was bundled: ${packageFiles("manual")}`);
    const body = await getJson(url("manual"));
    assert.equal(body.ok, true, body.stack ?? body.error);
    assert.equal(body.beforeInit, "ERR_NOT_INITIALIZED");
    assert.equal(body.wasmIsModule, true);
    assert.deepEqual(body.checks, EXPECTED);
  });

  test("the hosts guide's Worker example (examples/worker.js) runs as printed", async () => {
    assert.deepEqual(await getJson(url("readme")), {
      sent: [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user pressed Cancel" } }],
      late: true,
    });
  });

  test("a Worker that is an MCP client (SDK Streamable HTTP, through guardTransport) aborts a call: the server receives exactly one notifications/cancelled", async (t) => {
    assert.ok(packageFiles("client").includes("js/worker.js"));
    const body = await getJson(url("client", `?server=${encodeURIComponent(mcp.url)}`));
    assert.equal(body.ok, true, `${body.stack ?? body.error}\n${runtime.log()}`);
    t.diagnostic(`call aborted after ${body.abortedAfterMs} ms (${body.progressAtAbort} progress); the client sent: ${body.out.map((m) => m.method ?? `response ${m.id}`).join(", ")}`);

    // The server's side: one tools/call, one cancel for exactly that call, and its handler stopped.
    const calls = mcp.received.filter((m) => m.method === "tools/call");
    assert.equal(calls.length, 1);
    const callId = calls[0].id;
    const cancels = mcp.received.filter((m) => m.method === "notifications/cancelled");
    assert.deepEqual(cancels, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: callId, reason: "the worker gave up" } }]);
    assert.deepEqual(mcp.seen.aborted.map((a) => a.id), [callId]);
    assert.deepEqual(mcp.seen.completed, []);

    // The Worker's side: the call rejected with the abort, the guard sent that one cancel,
    // nothing reached the caller after it, and client.onerror stayed silent.
    assert.equal(body.outcome.settled, "rejected");
    assert.match(body.outcome.message, /the worker gave up|abort/i);
    assert.equal(body.progress, body.progressAtAbort, "no progress reached the caller after the abort");
    assert.deepEqual(body.events.filter((e) => e.type === "cancel-sent"), [{ type: "cancel-sent", requestId: callId }]);
    assert.deepEqual(body.out.filter((m) => m.method === "notifications/cancelled"), [{ method: "notifications/cancelled", requestId: callId }]);
    assert.deepEqual(body.errors, []);
  });
});
