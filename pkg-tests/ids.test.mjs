// Request ids of every shape through the core's tables and numbers-only entry points:
// counter ids in the window and past it, a request still in flight that the window
// slides past, string ids written into wasm memory (short, at the packed-key edge, longer
// than the scratch buffer, not ASCII, a lone surrogate), and wasm memory growing between
// two calls. Each id: tracked, refused twice, cancelled with its own value on the wire,
// its late response dropped; or answered, then unknown.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { CancellationSession } from "mcp-cancel";

function recorder() {
  const sent = [];
  const session = new CancellationSession({ send: (m) => sent.push(m) });
  return { session, sent };
}

/** The whole life of `id` in `session`: both ways (answered; cancelled, then late). */
function lifeOf(session, sent, id) {
  session.track(id, "tools/call");
  // (The error of an id with a lone surrogate names the core's copy, U+FFFD for it: ids cross
  // into wasm as UTF-8: two ids that differ only in lone surrogates are one id to the core.)
  const named = (e) => e.requestId === id || (id.isWellFormed?.() === false && typeof e.requestId === "string");
  assert.throws(() => session.track(id, "tools/call"), (e) => e.code === "ERR_ALREADY_IN_FLIGHT" && named(e), `a second track of ${JSON.stringify(id)}`);
  assert.equal(session.shouldDropResponse(id), false, `the answer to ${JSON.stringify(id)} is delivered`);
  assert.equal(session.shouldDropResponse(id), false, `a second answer to ${JSON.stringify(id)} is unknown: passed on`);
  session.track(id, "tools/call");
  const before = sent.length;
  session.cancel(id, "stop");
  assert.deepEqual(sent.slice(before), [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "stop" } }]);
  assert.equal(session.shouldDropResponse(id), true, `the late answer to ${JSON.stringify(id)} is dropped`);
  assert.equal(session.shouldDropResponse(id), false, "its tombstone is gone with it");
}

const STRING_IDS = [
  "",
  "1",
  "req-42",
  "exactly-11b", // the longest packed key
  "exactly-12by", // the shortest key kept as text
  "exactly-15-byte",
  "exactly-16-bytes",
  "x".repeat(256), // the scratch buffer's size
  "y".repeat(257), // crosses through a buffer made for the call (its strings need more than the scratch buffer)
  "é".repeat(200), // 400 bytes of UTF-8, through that buffer
  "w".repeat(100_000), // a buffer of 300,000 bytes for one call, freed after it
  "réq-1", // not ASCII: crosses as a string
  "🙂-7",
  "a\ud800b", // a lone surrogate (JSON allows it)
  "0", // a string that looks like a number id
];

describe("request ids through the core's tables", () => {
  test("string ids of every shape: tracked, refused twice, answered, cancelled with their own value, late answers dropped", () => {
    const { session, sent } = recorder();
    for (const id of STRING_IDS) lifeOf(session, sent, id);
    // The number 0 and the string "0" are two ids.
    session.track(0, "tools/call");
    session.track("0", "tools/call");
    assert.equal(session.shouldDropResponse(0), false);
    assert.equal(session.shouldDropResponse("0"), false);
  });

  test("short string ids cross as words: every length, every position of every byte, and a character past ASCII anywhere", () => {
    // The JS layer packs an ASCII id of up to 11 bytes into three words, byte by byte; a
    // wrong shift or a lost byte would make two ids one, or one id another.
    const { session, sent } = recorder();
    for (let n = 1; n <= 12; n++) {
      const base = "abcdefghijkl".slice(0, n);
      for (let i = 0; i < n; i++) {
        const other = `${base.slice(0, i)}~${base.slice(i + 1)}`; // one byte differs
        session.track(base, "tools/call");
        session.track(other, "tools/call");
        assert.equal(session.isInFlight(base) && session.isInFlight(other), true, `${base} and ${other}: two requests`);
        assert.equal(session.shouldDropResponse(other), false);
        assert.equal(session.isInFlight(base), true, `${base} is still in flight after ${other}'s answer`);
        assert.equal(session.shouldDropResponse(base), false);
        assert.equal(session.inFlightCount, 0);
        for (const c of ["\u00e9", "\u0100", "\u4e2d", "\ud83d\ude42"]) lifeOf(session, sent, `${base.slice(0, i)}${c}${base.slice(i + 1)}`);
      }
    }
  });

  test("number ids: in the window, past it, far from it, negative, fractional (refused)", () => {
    const { session, sent } = recorder();
    for (const id of [0, 1, 15, 16, 1023, 1024, 1025, 5000, 2 ** 53 - 1, -1, -(2 ** 53 - 1)]) lifeOf(session, sent, id);
    assert.throws(() => session.track(1.5, "tools/call"), (e) => e.code === "ERR_INVALID_REQUEST_ID");
    assert.equal(session.shouldDropResponse(1.5), false);
  });

  test("a counter runs 5000 past a request still in flight: that request is still cancelled by its id, and its late answer dropped", () => {
    const { session, sent } = recorder();
    session.track(0, "tools/call"); // e.g. a long tool call
    for (let id = 1; id <= 5000; id++) {
      session.track(id, "tools/call");
      if (id > 100) assert.equal(session.shouldDropResponse(id - 100), false);
    }
    assert.equal(session.inFlightCount, 101);
    session.cancel(0, "stop");
    session.cancel(4990, "stop");
    assert.deepEqual(
      sent.map((m) => m.params.requestId),
      [0, 4990],
    );
    assert.equal(session.shouldDropResponse(0), true);
    assert.equal(session.shouldDropResponse(4990), true);
    assert.equal(session.shouldDropResponse(5000), false);
  });

  test("wasm memory grows between two calls: string ids still cross (the scratch buffer's view is made again)", () => {
    const { session, sent } = recorder();
    session.track("before", "tools/call");
    // Thousands of long string ids in flight: the module's memory grows.
    const many = Array.from({ length: 20_000 }, (_, i) => `a-long-request-id-${i}-${"z".repeat(200)}`);
    for (const id of many) session.track(id, "tools/call");
    assert.equal(session.inFlightCount, 20_001);
    assert.ok(many.every((id) => session.isInFlight(id)), "each id was tracked as itself");
    const other = recorder();
    other.session.track("after", "tools/call");
    assert.equal(other.session.isInFlight("after"), true);
    assert.equal(other.session.shouldDropResponse("after"), false);
    assert.equal(other.session.isInFlight("after"), false, "the answer completed it");
    assert.equal(session.shouldDropResponse("before"), false);
    assert.equal(session.isInFlight("before"), false, "the answer completed it");
    session.cancel(many[7], "stop");
    assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: many[7], reason: "stop" } }]);
    for (const id of many) session.shouldDropResponse(id);
    assert.equal(session.inFlightCount, 0);
  });
});
