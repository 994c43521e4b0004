// `mcp-cancel bridge --stdio "<command>" --child-per-session`: one server process per session,
// every assertion on what each child received (its own wire tap file,
// pkg-tests/peers/stdio-tap.mjs with $WIRE_DIR), on each client's handlers, and on the
// children's processes:
//
//   SDK 1.x client A (no elicitation) ──┐                       ┌─stdio─▶ server-everything (A's)
//                                       ├─Streamable HTTP─▶ bridge
//   SDK 1.x client B (elicitation) ─────┘                       └─stdio─▶ server-everything (B's)
//
// With one child for all, B's elicitation while A's call is in flight cannot be routed (two
// clients wait on the child) and is refused; with a child per session it goes to B, B's cancel
// reaches B's child only, and each child's per-connection state is its own client's
// (server-everything registers its elicitation tool only for a client that declares the
// capability). A session's child ends with the session: DELETE, --session-ttl, its client
// vanishing (--resume-grace); --max-sessions bounds the children. All on loopback.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { INITIALIZE, rawRequest, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const EXITING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, "pkg-tests/peers/exiting-server.mjs"))}`;
const LONG = "trigger-long-running-operation";
const ELICIT = "trigger-elicitation-request";
const JSON_POST = { "content-type": "application/json" };

const sent = (records) => records.filter((r) => r.dir === "out").map((r) => r.message);
const cancelsIn = (records) => sent(records).filter((m) => m.method === "notifications/cancelled");
const callOf = (records, tool) => sent(records).find((m) => m.method === "tools/call" && m.params.name === tool);

/** Whether process `pid` runs. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `bridge --stdio "<tap> <command>" --child-per-session <args>`: the bridge (see
 * startStdioBridge) and its children so far (`children()`: `{ pid, records }` for each, its
 * wire as its tap recorded it), `childOf(name)`: the child whose initialize came from the
 * client named `name`.
 */
async function startPerSession(t, { command = EVERYTHING_COMMAND, args = [] } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-cancel-children-"));
  const bridge = await startStdioBridge(command, t, { args: ["--child-per-session", ...args], env: { WIRE_DIR: dir } });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const children = () =>
    readdirSync(dir).map((file) => ({
      pid: Number(file.split(".")[0]),
      records: readFileSync(path.join(dir, file), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    }));
  const childOf = (name) => children().find((c) => sent(c.records).some((m) => m.method === "initialize" && m.params.clientInfo.name === name));
  return { ...bridge, children, childOf };
}

/**
 * An SDK 1.x client named `name` on `url`; with `elicit`, it declares elicitation and its
 * handler records each request (`seen`: the request, its signal) and holds it until its
 * signal aborts.
 */
async function sdkClient(url, name, t, { elicit = false } = {}) {
  const client = new Client({ name, version: "1.0.0" }, { capabilities: elicit ? { elicitation: {} } : {} });
  const state = { client, seen: [], transport: new StreamableHTTPClientTransport(url) };
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      state.seen.push({ request, signal: extra.signal });
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
      return { action: "cancel" };
    });
  }
  await client.connect(state.transport);
  t.after(() => client.close().catch(() => {}));
  return state;
}

describe("bridge --stdio --child-per-session", { timeout: 120_000 }, () => {
  test("two clients: B's elicitation reaches B while A's call is in flight; B's abort cancels in B's child only; A's call completes; B's DELETE ends B's child", async (t) => {
    const bridge = await startPerSession(t);
    const a = await sdkClient(bridge.url, "A", t);
    const b = await sdkClient(bridge.url, "B", t, { elicit: true });
    await until(() => bridge.childOf("A") !== undefined && bridge.childOf("B") !== undefined, 5000, "a child per session");
    assert.equal(bridge.children().length, 2);
    // Each child's state is its own client's: B's server has the elicitation tool, A's not.
    assert.ok(!(await a.client.listTools()).tools.some((tool) => tool.name === ELICIT), "A's server: no elicitation tool");
    assert.ok((await b.client.listTools()).tools.some((tool) => tool.name === ELICIT), "B's server: the elicitation tool");

    const callA = a.client.callTool({ name: LONG, arguments: { duration: 2, steps: 4 } }, undefined, { timeout: 20_000 });
    await until(() => callOf(bridge.childOf("A").records, LONG) !== undefined, 5000, "A's call at A's child");
    const ac = new AbortController();
    const callB = b.client.callTool({ name: ELICIT, arguments: {} }, undefined, { signal: ac.signal, timeout: 20_000 }).catch((error) => error);
    await until(() => b.seen.length === 1, 10_000, "the elicitation at B's handler");
    assert.equal(b.seen[0].request.method, "elicitation/create");

    const abortedAt = performance.now();
    ac.abort("B stops");
    await until(() => cancelsIn(bridge.childOf("B").records).length === 1, 500, "notifications/cancelled at B's child within 500 ms");
    t.diagnostic(`B's abort → notifications/cancelled at B's child (its wire polled every 10 ms): ${(performance.now() - abortedAt).toFixed(0)} ms`);
    const bRecords = bridge.childOf("B").records;
    assert.equal(cancelsIn(bRecords)[0].params.requestId, callOf(bRecords, ELICIT).id, "the cancel names B's call under its child's id");
    await until(() => b.seen[0].signal.aborted, 5000, "B's elicitation handler aborted");
    assert.ok((await callB) instanceof Error, "B's call ends with its abort");

    const resultA = await callA;
    assert.match(resultA.content[0].text, /Long running operation completed/, JSON.stringify(resultA));
    assert.deepEqual(cancelsIn(bridge.childOf("A").records), [], "A's child got no cancel");

    const pidA = bridge.childOf("A").pid;
    const pidB = bridge.childOf("B").pid;
    const deletedAt = performance.now();
    await b.transport.terminateSession();
    await until(() => !alive(pidB), 5000, "B's child exits within 5 s of its session's DELETE");
    t.diagnostic(`DELETE → B's child gone: ${(performance.now() - deletedAt).toFixed(0)} ms`);
    assert.ok(
      bridge.childOf("B").records.some((r) => r.dir === "end"),
      "B's child had its stdin closed",
    );
    assert.ok(alive(pidA), "A's child runs on");
    assert.equal((await a.client.callTool({ name: "echo", arguments: { message: "still" } })).content[0].text, "Echo: still");
  });

  test("--max-sessions bounds the children: a session beyond gets 503 and no process; a deleted session's place is free once its child has ended", async (t) => {
    const bridge = await startPerSession(t, { args: ["--max-sessions", "2"] });
    await sdkClient(bridge.url, "A", t);
    const b = await sdkClient(bridge.url, "B", t);
    const over = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
    assert.equal(over.status, 503, over.text);
    assert.match(over.json.error.message, /most sessions \(2, --max-sessions\)/);
    await sleep(200);
    assert.equal(bridge.children().length, 2, "no process for the refused session");

    const pidB = bridge.childOf("B").pid;
    await b.transport.terminateSession();
    await until(() => !alive(pidB), 5000, "B's child exits");
    // Its place is free once the bridge has seen its child end.
    const end = Date.now() + 2000;
    let again;
    while (Date.now() < end) {
      again = await rawRequest(bridge.url, { headers: JSON_POST, body: INITIALIZE });
      if (again.status === 200) break;
      await sleep(50);
    }
    assert.equal(again.status, 200, again.text);
    await until(() => bridge.childOf("hostile") !== undefined, 5000, "the new session's child");
    assert.equal(bridge.children().filter((c) => alive(c.pid)).length, 2, "at most two children at once");
  });

  test("--session-ttl: a session with no request for the ttl ends, and its child with it; its next request gets 404", async (t) => {
    // Long enough for the handshake to finish on a loaded machine (the child's start counts:
    // the ttl ends a session with requests in flight too).
    const bridge = await startPerSession(t, { args: ["--session-ttl", "2000"] });
    const a = await sdkClient(bridge.url, "A", t);
    await until(() => bridge.childOf("A") !== undefined, 5000, "A's child");
    const { pid } = bridge.childOf("A");
    const sessionId = a.transport.sessionId;
    await until(() => !alive(pid), 8000, "A's child exits after its session's ttl");
    assert.ok(
      bridge.childOf("A").records.some((r) => r.dir === "end"),
      "its stdin was closed",
    );
    const after = await rawRequest(bridge.url, {
      headers: { ...JSON_POST, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
    });
    assert.equal(after.status, 404, after.text);
  });

  test("a client that vanishes (its streams close, no DELETE): its call is cancelled in its child after --resume-grace, then its child ends; the other session's child runs on", async (t) => {
    const bridge = await startPerSession(t, { args: ["--resume-grace", "300"] });
    const a = await sdkClient(bridge.url, "A", t);
    const b = await sdkClient(bridge.url, "B", t);
    await until(() => bridge.childOf("A") !== undefined && bridge.childOf("B") !== undefined, 5000, "a child per session");
    const callA = a.client.callTool({ name: LONG, arguments: { duration: 10, steps: 10 } }, undefined, { timeout: 20_000 }).catch((error) => error);
    await until(() => callOf(bridge.childOf("A").records, LONG) !== undefined, 5000, "A's call at A's child");
    const { pid } = bridge.childOf("A");
    // close() aborts the client's streams, its GET stream too, and sends nothing.
    await a.client.close();
    await callA;
    await until(() => cancelsIn(bridge.childOf("A").records).length === 1, 5000, "the cancel at A's child");
    assert.match(cancelsIn(bridge.childOf("A").records)[0].params.reason ?? "", /Client vanished/);
    await until(() => !alive(pid), 6000, "A's child exits");
    assert.ok(alive(bridge.childOf("B").pid), "B's child runs on");
    assert.equal((await b.client.callTool({ name: "echo", arguments: { message: "B" } })).content[0].text, "Echo: B");
  });

  test("a child that exits on its own ends its session (its call answered with an error, then 404), not the bridge: a new session gets a new child", async (t) => {
    const bridge = await startPerSession(t, { command: EXITING_COMMAND });
    const a = await sdkClient(bridge.url, "A", t);
    const call = await a.client.callTool({ name: "any", arguments: {} }, undefined, { timeout: 10_000 }).catch((error) => error);
    assert.ok(call instanceof Error, `the call gets an error: ${JSON.stringify(call)}`);
    // The session ends once the answers to its requests in flight are written (100 ms).
    const end = Date.now() + 2000;
    let after;
    while (Date.now() < end) {
      after = await rawRequest(bridge.url, {
        headers: { ...JSON_POST, "mcp-session-id": a.transport.sessionId, "mcp-protocol-version": "2025-11-25" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/list" }),
      });
      if (after.status === 404) break;
      await sleep(50);
    }
    assert.equal(after.status, 404, after.text);
    assert.equal(bridge.child.exitCode, null, "the bridge runs on");
    await sdkClient(bridge.url, "B", t);
    await until(() => bridge.childOf("B") !== undefined, 5000, "B's child");
    assert.match(bridge.stderr(), /the server process of session \S+ ended/);
  });

  test("2026-07-28 requests (no session) share one child, apart from the sessions' children", async (t) => {
    const bridge = await startPerSession(t);
    await sdkClient(bridge.url, "A", t);
    const modern = (id) => ({
      headers: { ...JSON_POST, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    });
    const [one, two] = await Promise.all([rawRequest(bridge.url, modern(1)), rawRequest(bridge.url, modern(2))]);
    for (const answer of [one, two]) {
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.text, /"tools"/);
    }
    assert.equal((await rawRequest(bridge.url, modern(3))).status, 200);
    const own = bridge.children().filter((c) => sent(c.records).some((m) => m.method === "initialize" && m.params.clientInfo.name === "mcp-cancel bridge"));
    assert.equal(own.length, 1, "one child for the 2026-07-28 requests, started with the bridge's own initialize");
    assert.equal(sent(own[0].records).filter((m) => m.method === "tools/list").length, 3);
    assert.equal(bridge.children().length, 2, "A's child and the 2026-07-28 one");
  });
});
