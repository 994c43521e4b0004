// `mcp-cancel bridge --stdio` and the server's own requests with several clients,
// every assertion on the child's stdio wire (pkg-tests/peers/stdio-tap.mjs) and on
// what each client's handler saw:
//
//   SDK 1.x client A (sampling handler) ─┐
//                                        ├─Streamable HTTP─▶ bridge --stdio ─stdio─▶ server-everything
//   SDK 1.x client B (sampling handler) ─┘                                    (trigger-sampling-request)
//
// Over stdio nothing on the wire ties the server's `sampling/createMessage` to the
// `tools/call` it serves (the SDK's `relatedRequestId` is a transport option, used by
// Streamable HTTP only), so the bridge's core (src/core/relay/mod.rs, `server_request_link`)
// sends it to the only client waiting for the server, and refuses it (-32000) when several
// are. When that client cancels its call, closes its session or vanishes, the server's
// pending request is answered with an error: server-everything (SDK 1.x) does not cancel the
// request a tool sent when the tool's call is cancelled, and would wait for it until its own
// request timeout (the SDK's default: 60 s).
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

import { EVERYTHING } from "../demo/everything.mjs";
import { startStdioBridge } from "./bridge-helpers.mjs";
import { sleep, until } from "./helpers.mjs";

const EVERYTHING_COMMAND = `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`;
const SAMPLE = "trigger-sampling-request";

const sent = (wire) => wire.filter((r) => r.dir === "out").map((r) => r.message);
const received = (wire) => wire.filter((r) => r.dir === "in").map((r) => r.message);
/** The server's sampling requests (what the child sent). */
const samplingsOf = (wire) => received(wire).filter((m) => m.method === "sampling/createMessage");
/** What the child got as the answer to its request `id`. */
const answerTo = (wire, id) => sent(wire).find((m) => m.id === id && m.method === undefined);

/**
 * An SDK 1.x client with the sampling capability on `url`. Its handler records each request
 * (`seen`: the prompt, the signal) and answers with its own name, unless `hold` is set: then
 * it waits until its request is cancelled (its signal aborts).
 */
async function samplingClient(url, name, t) {
  const client = new Client({ name, version: "1.0.0" }, { capabilities: { sampling: {} } });
  const state = { client, seen: [], hold: false, transport: undefined };
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    state.seen.push({ text: request.params.messages[0].content.text, id: extra.requestId, signal: extra.signal });
    if (state.hold) {
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }));
    }
    return { model: `model-of-${name}`, role: "assistant", content: { type: "text", text: `${name} answers` } };
  });
  state.transport = new StreamableHTTPClientTransport(url);
  await client.connect(state.transport);
  t.after(() => client.close().catch(() => {}));
  return state;
}

const sample = (c, prompt, options) =>
  c.client.callTool({ name: SAMPLE, arguments: { prompt, maxTokens: 5 } }, undefined, { timeout: 20_000, ...options });

describe("bridge --stdio: the server's requests with two clients on one child", () => {
  test("each client's sampling handler gets only the request of its own call", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const a = await samplingClient(bridge.url, "A", t);
    const b = await samplingClient(bridge.url, "B", t);

    const ra = await sample(a, "from A");
    assert.match(ra.content[0].text, /model-of-A/, JSON.stringify(ra));
    const rb = await sample(b, "from B");
    assert.match(rb.content[0].text, /model-of-B/, JSON.stringify(rb));
    assert.deepEqual(
      a.seen.map((s) => s.text),
      [`Resource ${SAMPLE} context: from A`],
    );
    assert.deepEqual(
      b.seen.map((s) => s.text),
      [`Resource ${SAMPLE} context: from B`],
    );
    // The child's two requests were answered, each once, under the server's own ids (0 and
    // 1); each client saw them under ids of the bridge's (from 1: the SDK 1.x client ignores
    // a cancel of id 0).
    const samplings = samplingsOf(bridge.wire());
    assert.deepEqual(
      samplings.map((m) => m.id),
      [0, 1],
    );
    assert.deepEqual([a.seen[0].id, b.seen[0].id], [1, 2]);
    assert.deepEqual(
      samplings.map((s) => answerTo(bridge.wire(), s.id)?.result?.model),
      ["model-of-A", "model-of-B"],
    );
  });

  test("two calls at once: the sampling request of the second is refused, not shown to the other client", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const a = await samplingClient(bridge.url, "A", t);
    const b = await samplingClient(bridge.url, "B", t);
    a.hold = true;
    const ac = new AbortController();
    const callA = sample(a, "from A", { signal: ac.signal }).catch((error) => error);
    await until(() => a.seen.length === 1, 10_000, "A's sampling request");
    // While A's call waits, B's call: its sampling request could be for A's call or B's.
    const rb = await sample(b, "from B").catch((error) => error);
    assert.equal(b.seen.length, 0, "B's handler saw nothing");
    assert.equal(a.seen.length, 1, "A's handler saw only its own");
    const text = rb instanceof Error ? rb.message : JSON.stringify(rb);
    assert.match(text, /no single client can take this request/);
    ac.abort();
    await callA;
  });

  test("a client that aborts its call: the child's pending sampling request gets an error, the client's handler a cancel", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const a = await samplingClient(bridge.url, "A", t);
    const b = await samplingClient(bridge.url, "B", t);
    a.hold = true;
    const ac = new AbortController();
    const callA = sample(a, "from A", { signal: ac.signal }).catch((error) => error);
    await until(() => a.seen.length === 1, 10_000, "A's sampling request");
    const [request] = samplingsOf(bridge.wire());
    ac.abort("user stop");
    assert.ok((await callA) instanceof Error);
    await until(() => answerTo(bridge.wire(), request.id) !== undefined, 5000, "the answer to the child's sampling request");
    const answer = answerTo(bridge.wire(), request.id);
    assert.equal(answer.error?.code, -32000, JSON.stringify(answer));
    assert.match(answer.error.message, /cancelled/);
    // The call itself was cancelled upstream, before the answer.
    const out = sent(bridge.wire());
    const cancelAt = out.findIndex((m) => m.method === "notifications/cancelled");
    const answerAt = out.findIndex((m) => m.id === request.id && m.method === undefined);
    assert.ok(cancelAt >= 0 && cancelAt < answerAt, JSON.stringify(out));
    // A was told to stop working on it.
    await until(() => a.seen[0].signal.aborted, 5000, "A's handler signal");
    // B is untouched and still served.
    const rb = await sample(b, "from B");
    assert.match(rb.content[0].text, /model-of-B/);
    assert.equal(b.seen.length, 1);
  });

  test("a client that ends its session (DELETE) mid-sampling: the child's request gets an error", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t);
    const a = await samplingClient(bridge.url, "A", t);
    await samplingClient(bridge.url, "B", t);
    a.hold = true;
    const callA = sample(a, "from A").catch((error) => error);
    await until(() => a.seen.length === 1, 10_000, "A's sampling request");
    const [request] = samplingsOf(bridge.wire());
    await a.transport.terminateSession();
    await a.client.close();
    await callA;
    await until(() => answerTo(bridge.wire(), request.id) !== undefined, 5000, "the answer to the child's sampling request");
    const answer = answerTo(bridge.wire(), request.id);
    assert.equal(answer.error?.code, -32000, JSON.stringify(answer));
    assert.match(answer.error.message, /disconnected/);
  });

  test("a client that vanishes mid-sampling (its streams close, no DELETE): the child's request gets an error after the resume grace", async (t) => {
    const bridge = await startStdioBridge(EVERYTHING_COMMAND, t, { args: ["--resume-grace", "200"] });
    const a = await samplingClient(bridge.url, "A", t);
    await samplingClient(bridge.url, "B", t);
    a.hold = true;
    const callA = sample(a, "from A").catch((error) => error);
    await until(() => a.seen.length === 1, 10_000, "A's sampling request");
    const [request] = samplingsOf(bridge.wire());
    // close() aborts the client's streams and sends nothing: to the bridge, A vanished.
    await a.client.close();
    await callA;
    await sleep(200);
    await until(() => answerTo(bridge.wire(), request.id) !== undefined, 5000, "the answer to the child's sampling request");
    const answer = answerTo(bridge.wire(), request.id);
    assert.equal(answer.error?.code, -32000, JSON.stringify(answer));
    const cancel = sent(bridge.wire()).find((m) => m.method === "notifications/cancelled");
    assert.match(cancel?.params?.reason ?? "", /Client vanished/);
  });
});
