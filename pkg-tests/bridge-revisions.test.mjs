// `mcp-cancel bridge --stdio` serves every revision on one /mcp: 2025-era
// clients in sessions (initialize, Mcp-Session-Id) and 2026-07-28 clients without one, each
// request naming its revision in its `_meta`. Which revision a request belongs to, and what
// it needs, is the core's answer (`classify_http` in src/core/relay/http.rs, `relay.classifyHttp()`);
// so is the 2026-07-28 client's `server/discover` (from the handshake the bridge makes with
// the child) and the shape of its answers (`modern_answer`). The child speaks stdio
// 2025-11-25: a 2026-07-28 client's cancel, the close of its request's stream, reaches it as
// one notifications/cancelled.
//
//   SDK 2.x clients (2026-07-28, or auto) ─┐
//   SDK 1.x clients (2025-11-25) ───────────┼─Streamable HTTP─▶ bridge --stdio ─stdio─▶ server-everything
//   raw requests ───────────────────────────┘
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { rawRequest, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";

const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const LONG = "trigger-long-running-operation";
const PIN_2026 = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

const sent = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const cancelsIn = (wire) => sent(wire).filter((m) => m.method === "notifications/cancelled");
const callOf = (wire, duration) => sent(wire).find((m) => m.method === "tools/call" && m.params.arguments?.duration === duration);

/** A 2026-07-28 request (its `_meta` envelope) and the headers an SDK 2.x client sends with it. */
function modern(method, params = {}, headers = {}, version = "2026-07-28") {
  const envelope = { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} };
  return {
    headers: { "content-type": "application/json", "mcp-protocol-version": version, "mcp-method": method, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: envelope } }),
  };
}

/** The JSON-RPC messages of an SSE body. */
const events = (text) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));

/** A 2026-07-28 SDK 2.x client, a long call of `duration` s aborted after its first progress: when (Date.now()) it aborted. */
async function abortingCall(client, duration) {
  const ac = new AbortController();
  let progress = 0;
  const call = client.callTool({ name: LONG, arguments: { duration, steps: 6 } }, { signal: ac.signal, onprogress: () => progress++ });
  await until(() => progress >= 1, 10_000, "progress");
  const abortedAt = Date.now();
  ac.abort();
  await assert.rejects(call, /abort/i);
  return abortedAt;
}

describe("mcp-cancel bridge --stdio: every revision on one endpoint", { timeout: 120_000 }, () => {
  test("raw: server/discover is answered by the bridge (2026-07-28 shape); headers that disagree -32020; an envelope-less modern request -32602; an unknown later revision -32022", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const refusals = [
      [modern("tools/list", {}, { "mcp-protocol-version": "2025-11-25" }), -32020, /MCP-Protocol-Version header names 2025-11-25/],
      [modern("tools/list", {}, { "mcp-method": "tools/call" }), -32020, /Mcp-Method header names tools\/call/],
      [
        { headers: { "content-type": "application/json", "mcp-protocol-version": "2026-07-28" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) },
        -32602,
        /no _meta envelope/,
      ],
      [{ headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) }, -32000, /no valid session/],
      [{ headers: { "content-type": "application/json" }, body: JSON.stringify({ hello: "world" }) }, -32600, /not a JSON-RPC message/],
      [modern("tools/list", {}, {}, "2027-01-01"), -32022, /Unsupported protocol version 2027-01-01/],
    ];
    for (const [request, code, message] of refusals) {
      const answer = await rawRequest(bridge.url, request);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.error.code, code, answer.text);
      assert.match(answer.json.error.message, message);
    }
    await sleep(200);
    assert.deepEqual(bridge.wire(), [], "nothing of a refused request reached the child");

    const probe = await rawRequest(bridge.url, modern("server/discover"));
    assert.equal(probe.status, 200, probe.text);
    assert.equal(probe.headers["mcp-session-id"], undefined, "no session");
    const [answer] = events(probe.text);
    assert.equal(answer.id, 1);
    const { result } = answer;
    assert.deepEqual(result.supportedVersions, ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
    assert.equal(result.resultType, "complete");
    assert.equal(result.ttlMs, 0);
    assert.equal(result.cacheScope, "private");
    assert.ok(result.capabilities.tools, "the child's capabilities");
    assert.equal(result.capabilities.tasks, undefined, "tasks are an extension in 2026-07-28");
    assert.equal(result._meta["io.modelcontextprotocol/serverInfo"].name, "mcp-servers/everything");
    // The child was initialized once, by the bridge (no client had), and got no server/discover.
    // The wire log is written by the tap process as it forwards: `notifications/initialized`,
    // sent once the handshake is answered, may be logged after the answer reached us.
    await until(() => sent(bridge.wire()).length >= 2, 5000, "the bridge's handshake in the child's wire log");
    await sleep(100);
    const toChild = sent(bridge.wire());
    assert.deepEqual(
      toChild.map((m) => m.method),
      ["initialize", "notifications/initialized"],
    );
    assert.deepEqual(toChild[0].params.clientInfo.name, "mcp-cancel bridge");
    assert.deepEqual(toChild[0].params.capabilities, {});
  });

  test("an SDK 2.x client pinned to 2026-07-28: no session, its calls answered, its abort is one notifications/cancelled at the child (stdio 2025-11-25) and no error", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const transport = new Transport2(bridge.url);
    const client = new Client2({ name: "pinned", version: "0.0.0" }, PIN_2026);
    const errors = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);
    t.after(() => client.close());
    assert.equal(transport.sessionId, undefined, "no session");
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "echo"));
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "hi" } })).content[0].text, "Echo: hi");

    const abortedAt = await abortingCall(client, 3);
    await until(() => cancelsIn(bridge.wire()).length === 1, 5000, "the cancel at the child");
    t.diagnostic(`abort → cancel at the child (seen by polling its wire every 10 ms): ${Date.now() - abortedAt} ms`);
    const call = callOf(bridge.wire(), 3);
    assert.deepEqual(cancelsIn(bridge.wire())[0].params, { requestId: call.id }, "the stream's close carries no reason");
    await sleep(500);
    assert.equal(cancelsIn(bridge.wire()).length, 1, "exactly one");
    assert.deepEqual(errors, [], "nothing late reached the client");
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "after" } })).content[0].text, "Echo: after");
    // 2025-era framing never reached the child from it: one initialize (the bridge's), no server/discover.
    assert.equal(sent(bridge.wire()).filter((m) => m.method === "initialize").length, 1);
    assert.equal(sent(bridge.wire()).filter((m) => m.method === "server/discover").length, 0);
  });

  test("--max-requests: a 2026-07-28 request beyond the cap in flight gets 503 and is not forwarded; an answered one frees its place", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--max-requests", "1"] });
    const client = new Client2({ name: "pinned", version: "0.0.0" }, PIN_2026);
    await client.connect(new Transport2(bridge.url));
    t.after(() => client.close());
    const ac = new AbortController();
    let progress = 0;
    const long = client.callTool({ name: LONG, arguments: { duration: 4, steps: 8 } }, { signal: ac.signal, onprogress: () => progress++ });
    await until(() => progress >= 1, 10_000, "the first call in flight");
    const { headers, body } = modern("tools/call", { name: "echo", arguments: { message: "over" } });
    const over = await rawRequest(bridge.url, { headers, body });
    assert.equal(over.status, 503, over.text);
    assert.match(over.json.error.message, /most 2026-07-28 requests in flight \(1, --max-requests\)/);
    assert.equal(over.headers["retry-after"], "1");
    assert.equal(sent(bridge.wire()).filter((m) => m.method === "tools/call" && m.params.arguments?.message === "over").length, 0, "nothing reached the child");
    ac.abort();
    await assert.rejects(long, /abort/i);
    // The aborted request's stream closed: its place is free.
    let again;
    for (let tries = 0; tries < 50 && again?.status !== 200; tries++) {
      if (tries > 0) await sleep(100);
      again = await rawRequest(bridge.url, { headers, body });
    }
    assert.equal(again.status, 200, again.text);
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "after" } })).content[0].text, "Echo: after");
  });

  test("2025-11-25 and 2026-07-28 clients on the same /mcp: overlapping ids, each abort cancels its own call only; SDK 2.x auto mode picks 2026-07-28", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const old = new Client({ name: "sdk1", version: "0.0.0" });
    const oldErrors = [];
    old.onerror = (error) => oldErrors.push(error);
    await old.connect(new StreamableHTTPClientTransport(bridge.url));
    t.after(() => old.close());
    // The 2025 client came first: its initialize is the child's handshake, which the 2026 clients' discovery reuses.
    const pinned = new Client2({ name: "pinned", version: "0.0.0" }, PIN_2026);
    const auto = new Client2({ name: "auto", version: "0.0.0" }, { versionNegotiation: { mode: "auto" } });
    const errors2 = [];
    for (const c of [pinned, auto]) {
      c.onerror = (error) => errors2.push(error);
      await c.connect(new Transport2(bridge.url));
      t.after(() => c.close());
    }
    assert.equal(auto.getNegotiatedProtocolVersion(), "2026-07-28", "auto mode: the bridge offers 2026-07-28");
    assert.equal(pinned.getNegotiatedProtocolVersion(), "2026-07-28");
    assert.equal(sent(bridge.wire()).filter((m) => m.method === "initialize").length, 1);
    assert.equal(sent(bridge.wire()).find((m) => m.method === "initialize").params.clientInfo.name, "sdk1");

    // Three long calls at once; the 2025 client's and the pinned client's are aborted, the auto client's runs to its end.
    const acOld = new AbortController();
    let oldProgress = 0;
    const oldCall = old.callTool({ name: LONG, arguments: { duration: 3.01, steps: 6 } }, undefined, { signal: acOld.signal, onprogress: () => oldProgress++ });
    const autoCall = auto.callTool({ name: LONG, arguments: { duration: 2.02, steps: 4 } });
    const pinnedAbort = abortingCall(pinned, 3.03);
    await until(() => oldProgress >= 1, 10_000, "the 2025 call's progress");
    acOld.abort("stop sdk1");
    await assert.rejects(oldCall);
    await pinnedAbort;
    const done = await autoCall;
    assert.match(done.content[0].text, /completed/);
    await until(() => cancelsIn(bridge.wire()).length === 2, 5000, "two cancels at the child");
    await sleep(300);
    const wire = bridge.wire();
    const ids = [3.01, 2.02, 3.03].map((d) => callOf(wire, d).id);
    assert.equal(new Set(ids).size, 3, "distinct upstream ids");
    assert.deepEqual(
      cancelsIn(wire)
        .map((m) => m.params)
        .sort((x, y) => x.requestId - y.requestId),
      [{ requestId: ids[0], reason: "stop sdk1" }, { requestId: ids[2] }].sort((x, y) => x.requestId - y.requestId),
      "the 2025 client's cancel (its reason) and the 2026 client's (a closed stream), and not the auto client's call",
    );
    assert.deepEqual(oldErrors, []);
    assert.deepEqual(errors2, []);
  });
});
