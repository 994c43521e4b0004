// `mcp-cancel bridge --stdio` and the revision of each HTTP request (issue #26, part 1, its
// first step): which revision a request belongs to and whether it needs a session is the
// core's answer (`classify_http` in src/core/relay.rs, through `relay.classifyHttp()`), not a
// rule in js/cli/. 2026-07-28 requests are not served yet: they get 400 with -32022 and the
// revisions that are, so an SDK 2.x client in `auto` mode falls back to 2025-11-25 (and its
// abort is one notifications/cancelled at the child), and one pinned to 2026-07-28 fails to
// connect with that error instead of a bare 400.
//
//   SDK 2.x clients / raw requests ─Streamable HTTP─▶ bridge --stdio ─stdio─▶ server-everything
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

import { EVERYTHING } from "../demo/everything.mjs";
import { rawRequest, startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";

const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const LONG = "trigger-long-running-operation";
const SERVED = ["2025-03-26", "2025-06-18", "2025-11-25"];

const sent = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const cancelsIn = (wire) => sent(wire).filter((m) => m.method === "notifications/cancelled");

/** A 2026-07-28 request body (its `_meta` envelope) and the headers an SDK 2.x client sends with it. */
function modern(method, params = {}, headers = {}) {
  const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
  return {
    headers: { "content-type": "application/json", "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: envelope } }),
  };
}

describe("mcp-cancel bridge --stdio: the revision of each request is the core's answer", { timeout: 120_000 }, () => {
  test("a 2026-07-28 request gets 400 -32022 naming the revisions served; headers that disagree -32020; a modern header without an envelope -32602; nothing reaches the child", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const probe = await rawRequest(bridge.url, modern("server/discover"));
    assert.equal(probe.status, 400);
    assert.equal(probe.json.error.code, -32022);
    assert.deepEqual(probe.json.error.data, { supported: SERVED, requested: "2026-07-28" });
    const cases = [
      [modern("tools/list", {}, { "mcp-protocol-version": "2025-11-25" }), -32020, /MCP-Protocol-Version header names 2025-11-25/],
      [modern("tools/list", {}, { "mcp-method": "tools/call" }), -32020, /Mcp-Method header names tools\/call/],
      [
        { headers: { "content-type": "application/json", "mcp-protocol-version": "2026-07-28" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) },
        -32602,
        /no _meta envelope/,
      ],
      [{ headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) }, -32000, /no valid session/],
      [{ headers: { "content-type": "application/json" }, body: JSON.stringify({ hello: "world" }) }, -32600, /not a JSON-RPC message/],
    ];
    for (const [request, code, message] of cases) {
      const answer = await rawRequest(bridge.url, request);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.error.code, code, answer.text);
      assert.match(answer.json.error.message, message);
    }
    await sleep(200);
    assert.deepEqual(bridge.wire(), [], "nothing reached the child");
  });

  test("an SDK 2.x client pinned to 2026-07-28 fails to connect with the unsupported-version error", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const client = new Client({ name: "pinned", version: "0.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(bridge.url)), /2026-07-28|[Uu]nsupported protocol version/);
    assert.deepEqual(bridge.wire(), []);
  });

  test("an SDK 2.x client in auto mode falls back to 2025-11-25 and its abort is one notifications/cancelled at the child, for its call", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const client = new Client({ name: "auto", version: "0.0.0" });
    const errors = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(new StreamableHTTPClientTransport(bridge.url));
    t.after(() => client.close());
    assert.equal(sent(bridge.wire()).find((m) => m.method === "initialize").params.protocolVersion, "2025-11-25");
    const ac = new AbortController();
    let progress = 0;
    const call = client.callTool({ name: LONG, arguments: { duration: 3, steps: 6 } }, { signal: ac.signal, onprogress: () => progress++ });
    await until(() => progress >= 1, 10_000, "progress");
    ac.abort("user pressed stop");
    await assert.rejects(call);
    await until(() => cancelsIn(bridge.wire()).length === 1, 5000, "the cancel at the child");
    const callId = sent(bridge.wire()).find((m) => m.method === "tools/call").id;
    assert.equal(cancelsIn(bridge.wire())[0].params.requestId, callId);
    await sleep(300);
    assert.equal(cancelsIn(bridge.wire()).length, 1);
    assert.equal((await client.callTool({ name: "echo", arguments: { message: "after" } })).content[0].text, "Echo: after");
  });
});
