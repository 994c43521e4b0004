// Many instances: two `mcp-cancel bridge --stdio` instances behind a real
// nginx (Debian's package; scripts/setup.sh --test installs it), configured by docs/bridge.md's
// examples/nginx-mcp.conf with only its ports changed:
//
//   10 SDK 1.x clients ─HTTP─▶ nginx ─map $http_mcp_session_id─▶ bridge --instance a ─stdio─▶ server-everything
//   10 SDK 2.x clients (2026-07-28)  (no session: round-robin) ─▶ bridge --instance b ─stdio─▶ server-everything
//
// Each client aborts a long tools/call. A 2025-era client's notifications/cancelled is a
// separate POST, which nginx must send to the instance that holds the request; a 2026-07-28
// client's cancel is the close of the request's own stream, which nginx passes on to the
// instance at the other end of it. Checked on each child's stdio wire
// (pkg-tests/peers/stdio-tap.mjs) and in nginx's access log.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { INITIALIZE, rawRequest, runBridge, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** docs/bridge.md's nginx configuration (a conf.d file), which this test runs. */
export const NGINX_CONF = path.join(ROOT, "examples/nginx-mcp.conf");
const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const LONG = "trigger-long-running-operation";
const CLIENTS = 10;

const sent = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const cancelsIn = (wire) => sent(wire).filter((m) => m.method === "notifications/cancelled");

/** The nginx binary: on PATH, or where Debian puts it (/usr/sbin is not on a user's PATH). */
function nginxBinary() {
  for (const candidate of ["nginx", "/usr/sbin/nginx", "/usr/local/sbin/nginx"]) {
    if (spawnSync(candidate, ["-v"], { stdio: "ignore" }).status === 0) return candidate;
  }
  return undefined;
}

/** A TCP port free on 127.0.0.1 now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on 127.0.0.1:`port`. */
async function listening(port, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${ms} ms`);
    await sleep(50);
  }
}

/** `text` with `from` replaced by `to`, which must occur exactly `times` times. */
function replaceExactly(text, from, to, times) {
  const parts = text.split(from);
  assert.equal(parts.length - 1, times, `examples/nginx-mcp.conf: expected "${from}" ${times} times`);
  return parts.join(to);
}

/**
 * nginx in the foreground with docs/bridge.md's configuration, its bridges' ports put in for 3001
 * and 3002, listening on a free loopback port; its pid, logs and temp files in a temp dir.
 * Stopped when the test ends. Returns its URL and its access log's lines
 * (`status method upstream_addr session_id`).
 */
async function startNginx(t, ports) {
  const nginx = nginxBinary();
  assert.ok(nginx, "nginx is missing: scripts/setup.sh --test installs it (as root: apt-get install -y nginx-light)");
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-cancel-nginx-"));
  chmodSync(dir, 0o755); // nginx's workers (nobody, when it runs as root) write its temp dirs
  const port = await freePort();
  let site = readFileSync(NGINX_CONF, "utf8");
  site = replaceExactly(site, "server 127.0.0.1:3001;", `server 127.0.0.1:${ports.a};`, 2);
  site = replaceExactly(site, "server 127.0.0.1:3002;", `server 127.0.0.1:${ports.b};`, 2);
  site = replaceExactly(site, "listen 127.0.0.1:8080;", `listen 127.0.0.1:${port};`, 1);
  writeFileSync(path.join(dir, "mcp.conf"), site);
  // What /etc/nginx/nginx.conf would give, with every path in the temp dir.
  writeFileSync(
    path.join(dir, "nginx.conf"),
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events { worker_connections 512; }
http {
    log_format mcp '$status $request_method $upstream_addr "$http_mcp_session_id"';
    access_log ${dir}/access.log mcp;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    include ${dir}/mcp.conf;
}
`,
  );
  const args = ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", path.join(dir, "error.log")];
  const check = spawnSync(nginx, [...args, "-t"], { encoding: "utf8" });
  assert.equal(check.status, 0, `nginx -t: ${check.stderr}`);
  const child = spawn(nginx, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  t.after(async () => {
    child.kill("SIGTERM"); // nginx's fast shutdown
    await Promise.race([exited, sleep(5000).then(() => child.kill("SIGKILL"))]);
    rmSync(dir, { recursive: true, force: true });
  });
  await Promise.race([
    listening(port, 10_000, "nginx"),
    exited.then((status) => {
      throw new Error(`nginx exited (${status}): ${stderr}${readLog(path.join(dir, "error.log"))}`);
    }),
  ]);
  const log = () =>
    readLog(path.join(dir, "access.log"))
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [, status, method, upstream, session] = /^(\d+) (\S+) (\S+) "(.*)"$/.exec(line);
        return { status: Number(status), method, upstream, session };
      });
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), log, errors: () => readLog(path.join(dir, "error.log")) };
}

function readLog(file) {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

describe("mcp-cancel bridge --stdio --instance: many instances behind nginx", { timeout: 60_000 }, () => {
  test("ten 2025-era SDK 1.x clients through nginx abort a call each: every cancel reaches the instance and the child that hold the request, no 'Session not found'", async (t) => {
    const args = (name) => ({ args: ["--instance", name, "--allow-host", "mcp.example.com"] });
    const [a, b] = await Promise.all([startStdioBridge(EVERYTHING_COMMAND, t, args("a")), startStdioBridge(EVERYTHING_COMMAND, t, args("b"))]);
    const bridges = { a, b };
    const lb = await startNginx(t, { a: a.url.port, b: b.url.port });

    const clients = [];
    for (let i = 0; i < CLIENTS; i++) {
      const transport = new StreamableHTTPClientTransport(lb.url);
      const client = new Client({ name: `c${i}`, version: "0.0.0" });
      const errors = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(transport);
      clients.push({ i, client, transport, errors, instance: transport.sessionId.split(".")[0] });
    }
    t.after(() => Promise.all(clients.map(({ client }) => client.close().catch(() => {}))));
    for (const { transport } of clients) assert.match(transport.sessionId, /^[ab]\.[0-9a-f-]{36}$/, `session id ${transport.sessionId}`);
    const on = (name) => clients.filter((c) => c.instance === name);
    // Round-robin for the initialize (no session yet): the sessions split across both instances.
    assert.ok(on("a").length >= 1 && on("b").length >= 1, `sessions on a: ${on("a").length}, on b: ${on("b").length}`);
    // One initialize per child, shared by its instance's clients.
    for (const bridge of [a, b]) assert.equal(sent(bridge.wire()).filter((m) => m.method === "initialize").length, 1);

    // Each client: a long call (its duration tells it apart on the wire), aborted after its first progress.
    const calls = clients.map((c) => {
      const ac = new AbortController();
      const duration = 3 + c.i * 0.01;
      let progress = 0;
      const done = c.client.callTool({ name: LONG, arguments: { duration, steps: 6 } }, undefined, { signal: ac.signal, onprogress: () => progress++ }).then(
        () => "resolved",
        (error) => error,
      );
      return { ...c, ac, duration, done, progress: () => progress };
    });
    await until(() => calls.every((call) => call.progress() >= 1), 15_000, "progress on every call");
    for (const call of calls) call.ac.abort(`stop c${call.i}`);
    for (const call of calls) {
      const outcome = await call.done;
      assert.ok(outcome instanceof Error, `c${call.i}'s call rejected (got ${outcome})`);
    }
    for (const name of ["a", "b"]) {
      await until(() => cancelsIn(bridges[name].wire()).length >= on(name).length, 5000, `the cancels at child ${name}`);
    }
    await sleep(300); // a second cancel, or one on the wrong child, would be here by now

    const wires = { a: a.wire(), b: b.wire() };
    for (const call of calls) {
      const other = call.instance === "a" ? "b" : "a";
      const here = sent(wires[call.instance]).filter((m) => m.method === "tools/call" && m.params.arguments.duration === call.duration);
      assert.equal(here.length, 1, `c${call.i}'s tools/call on child ${call.instance}`);
      const elsewhere = sent(wires[other]).filter((m) => m.method === "tools/call" && m.params.arguments.duration === call.duration);
      assert.deepEqual(elsewhere, [], `c${call.i}'s tools/call not on child ${other}`);
      const cancels = cancelsIn(wires[call.instance]).filter((m) => m.params.requestId === here[0].id);
      assert.deepEqual(
        cancels.map((m) => m.params),
        [{ requestId: here[0].id, reason: `stop c${call.i}` }],
        `exactly one cancel of c${call.i}'s upstream id ${here[0].id} on child ${call.instance}`,
      );
    }
    for (const name of ["a", "b"]) {
      // Every cancel on a child is one of its own clients' (none strayed to the other instance).
      const reasons = cancelsIn(wires[name]).map((m) => m.params.reason).sort();
      assert.deepEqual(reasons, on(name).map(({ i }) => `stop c${i}`).sort(), `the cancels on child ${name}`);
    }

    // Each session still works through nginx after its abort.
    for (const { client, i } of clients) {
      const echo = await client.callTool({ name: "echo", arguments: { message: `c${i}` } });
      assert.equal(echo.content[0].text, `Echo: c${i}`);
    }
    for (const { errors, i } of clients) assert.deepEqual(errors.map(String), [], `c${i}'s errors`);
    // DELETE ends each session, on its instance.
    for (const { transport } of clients) await transport.terminateSession();

    // nginx's own account: every request of a session went to its instance's port, and none was answered 404.
    const port = { a: a.url.port, b: b.url.port };
    // nginx writes a request's line once it has answered it.
    await until(() => lb.log().filter((r) => r.method === "DELETE").length === CLIENTS, 5000, "the DELETEs in nginx's log");
    const log = lb.log();
    const withSession = log.filter((r) => r.session !== "" && r.session !== "-");
    assert.ok(withSession.length >= CLIENTS * 4, `requests with a session in nginx's log: ${withSession.length}`);
    for (const r of withSession) assert.equal(r.upstream, `127.0.0.1:${port[r.session.split(".")[0]]}`, `${r.method} of session ${r.session} went to ${r.upstream}`);
    assert.deepEqual(log.filter((r) => r.status === 404), [], "no 'Session not found' (404) in nginx's log");
    assert.equal(withSession.filter((r) => r.method === "DELETE" && r.status === 200).length, CLIENTS);
    assert.doesNotMatch(lb.errors(), /\[(error|crit|alert|emerg)\]/, "nginx's error log");
    t.diagnostic(`sessions: a ${on("a").length}, b ${on("b").length}; requests through nginx: ${log.length}`);

    // The bridges still check Host behind nginx (it forwards the client's): the name they are
    // reached by (--allow-host) passes, a DNS-rebinding page's does not.
    const served = await rawRequest(lb.url, { headers: { "content-type": "application/json", host: "mcp.example.com" }, body: INITIALIZE });
    assert.equal(served.status, 200, served.text);
    assert.match(served.headers["mcp-session-id"], /^[ab]\./);
    const rebinding = await rawRequest(lb.url, { headers: { "content-type": "application/json", host: "attacker.example", origin: "http://attacker.example" }, body: INITIALIZE });
    assert.equal(rebinding.status, 403, rebinding.text);
  });

  test("ten 2026-07-28 SDK 2.x clients through nginx (round-robin, no session) abort a call each: every cancel reaches the child that runs the call, once", async (t) => {
    const args = (name) => ({ args: ["--instance", name, "--allow-host", "mcp.example.com"] });
    const [a, b] = await Promise.all([startStdioBridge(EVERYTHING_COMMAND, t, args("a")), startStdioBridge(EVERYTHING_COMMAND, t, args("b"))]);
    const bridges = { a, b };
    const lb = await startNginx(t, { a: a.url.port, b: b.url.port });

    const clients = [];
    for (let i = 0; i < CLIENTS; i++) {
      const transport = new Transport2(lb.url);
      const client = new Client2({ name: `m${i}`, version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      const errors = [];
      client.onerror = (error) => errors.push(error);
      await client.connect(transport);
      assert.equal(transport.sessionId, undefined, "2026-07-28: no session");
      clients.push({ i, client, errors });
    }
    t.after(() => Promise.all(clients.map(({ client }) => client.close().catch(() => {}))));

    // Each client: a long call (its duration tells it apart on the wire), aborted after its first progress.
    const calls = clients.map((c) => {
      const ac = new AbortController();
      const duration = 3 + c.i * 0.01;
      let progress = 0;
      const done = c.client.callTool({ name: LONG, arguments: { duration, steps: 6 } }, { signal: ac.signal, onprogress: () => progress++ }).then(
        () => "resolved",
        (error) => error,
      );
      return { ...c, ac, duration, done, progress: () => progress };
    });
    await until(() => calls.every((call) => call.progress() >= 1), 15_000, "progress on every call");
    for (const call of calls) call.ac.abort();
    for (const call of calls) assert.ok((await call.done) instanceof Error, `m${call.i}'s call rejected`);
    await until(() => cancelsIn(a.wire()).length + cancelsIn(b.wire()).length >= CLIENTS, 5000, "ten cancels at the children");
    await sleep(300); // a second cancel, or one on the wrong child, would be here by now

    const wires = { a: a.wire(), b: b.wire() };
    const served = { a: 0, b: 0 };
    for (const call of calls) {
      const where = ["a", "b"].filter((name) => sent(wires[name]).some((m) => m.method === "tools/call" && m.params.arguments.duration === call.duration));
      assert.equal(where.length, 1, `m${call.i}'s tools/call on one child: ${where}`);
      const [name] = where;
      served[name]++;
      const here = sent(wires[name]).find((m) => m.method === "tools/call" && m.params.arguments.duration === call.duration);
      assert.deepEqual(
        cancelsIn(wires[name]).filter((m) => m.params.requestId === here.id).map((m) => m.params),
        [{ requestId: here.id }],
        `exactly one cancel of m${call.i}'s upstream id ${here.id} on child ${name}`,
      );
    }
    for (const name of ["a", "b"]) assert.equal(cancelsIn(wires[name]).length, served[name], `every cancel on child ${name} is one of its calls'`);
    // Round-robin: both instances ran calls.
    assert.ok(served.a >= 1 && served.b >= 1, `calls on a: ${served.a}, on b: ${served.b}`);
    // Each child was initialized once, by its bridge; none got a server/discover.
    for (const name of ["a", "b"]) {
      assert.equal(sent(wires[name]).filter((m) => m.method === "initialize").length, 1);
      assert.equal(sent(wires[name]).filter((m) => m.method === "server/discover").length, 0);
    }
    for (const { client, i } of clients) {
      const echo = await client.callTool({ name: "echo", arguments: { message: `m${i}` } });
      assert.equal(echo.content[0].text, `Echo: m${i}`);
    }
    for (const { errors, i } of clients) assert.deepEqual(errors.map(String), [], `m${i}'s errors`);
    const log = lb.log();
    assert.deepEqual(log.filter((r) => r.status === 404), [], "no 404 in nginx's log");
    assert.deepEqual(log.filter((r) => r.session !== "" && r.session !== "-"), [], "no session id in nginx's log");
    assert.doesNotMatch(lb.errors(), /\[(error|crit|alert|emerg)\]/, "nginx's error log");
    t.diagnostic(`calls on a: ${served.a}, on b: ${served.b}; requests through nginx: ${log.length}`);
  });

  test("--instance: a name that is not safe in a header or a load balancer's rule is a usage error; a session of another instance is named in the 404", async (t) => {
    for (const name of ["", "a.b", "a b", "a/b", "é", "x".repeat(33), "a\r\nX-Injected: 1"]) {
      const r = await runBridge(["--stdio", EVERYTHING_COMMAND, "--port", "0", "--instance", name]);
      assert.equal(r.status, 2, `--instance ${JSON.stringify(name)}`);
      assert.match(r.stderr, /--instance must be 1 to 32 letters, digits, "_" or "-"/);
    }
    const r = await runBridge(["--http", "http://127.0.0.1:9/mcp", "--instance", "a"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--instance is for --stdio/);

    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--instance", "Node_7-x"] });
    assert.match(bridge.stderr(), /instance Node_7-x \(session ids Node_7-x\.\*\)/);
    const answer = await rawRequest(bridge.url, { headers: { "content-type": "application/json" }, body: INITIALIZE });
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.headers["mcp-session-id"], /^Node_7-x\.[0-9a-f-]{36}$/);
    const stray = await rawRequest(bridge.url, { headers: { "content-type": "application/json", "mcp-session-id": "b.0b5e2c1e-0000-4000-8000-000000000000" }, body: INITIALIZE });
    assert.equal(stray.status, 404);
    assert.equal(stray.json.error.code, -32001);
    assert.match(stray.json.error.message, /^Session not found \(this is instance Node_7-x; the session id names instance b\)$/);
  });
});
