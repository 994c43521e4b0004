// The crossing of a short string request id as numbers (issue #24, 1b): its bytes as three
// words, nothing written to wasm memory. Shared by js/front.js (the hot paths of `track()` and
// `shouldDropResponse()`) and js/session.js (every other path that crosses an id as numbers).
// The core says how long an id may be (`maxWordsId`); this file only packs.

import { startTables } from "../pkg/web/mcp_cancel_tables.js";

/** The words of the last string id `packWords` packed (bytes 0–3, 4–7, 8–10, little-endian). */
export let W0 = 0;
export let W1 = 0;
export let W2 = 0;

/** The longest string id `packWords` packs: the core's `maxWordsId`, at most its 11 cases. */
const MAX_WORDS_ID = Math.min(startTables.maxWordsId, 11);

/** The string id `W0`, `W1`, `W2` hold (a request's id is most often packed again for its response). */
let PACKED;

/**
 * `packWords(id)` unless `id` is the id packed last (`PACKED`, its words still in `W0`–`W2`):
 * for the callers that see an id again (a response after its request, the peer's cancel
 * and our response after its request).
 */
export function packed(id) {
  return id === PACKED || packWords(id);
}

/**
 * Packs an ASCII string id of at most `MAX_WORDS_ID` (11) bytes into `W0`, `W1`, `W2` for the
 * core's `trackPlain`/`responsePlain` (nothing written to wasm memory), and remembers it as
 * `PACKED`: true when it did. A caller that may see the same id again calls `packed`;
 * `track` calls this (its id is most often new). Unrolled
 * by length (no loop: 1b with string ids, issue #24), the ASCII check once at the end over
 * every character, and kept under V8's size for inlining (460 bytes of bytecode, Node 20;
 * bench/inlining.mjs): with `track` small enough too, V8 inlines both into the caller (1b
 * with string ids 106 → 92 ns in the full benchmark run).
 */
export function packWords(id) {
  const n = id.length;
  if (n > MAX_WORDS_ID) return false;
  let c = 0;
  let seen = 0;
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  // Each case falls through to the next: the bytes from the last to the first.
  switch (n) {
    case 11:
      seen |= c = id.charCodeAt(10);
      w2 |= c << 16;
    // falls through
    case 10:
      seen |= c = id.charCodeAt(9);
      w2 |= c << 8;
    // falls through
    case 9:
      seen |= c = id.charCodeAt(8);
      w2 |= c;
    // falls through
    case 8:
      seen |= c = id.charCodeAt(7);
      w1 |= c << 24;
    // falls through
    case 7:
      seen |= c = id.charCodeAt(6);
      w1 |= c << 16;
    // falls through
    case 6:
      seen |= c = id.charCodeAt(5);
      w1 |= c << 8;
    // falls through
    case 5:
      seen |= c = id.charCodeAt(4);
      w1 |= c;
    // falls through
    case 4:
      seen |= c = id.charCodeAt(3);
      w0 |= c << 24;
    // falls through
    case 3:
      seen |= c = id.charCodeAt(2);
      w0 |= c << 16;
    // falls through
    case 2:
      seen |= c = id.charCodeAt(1);
      w0 |= c << 8;
    // falls through
    case 1:
      seen |= c = id.charCodeAt(0);
      w0 |= c;
  }
  if (seen > 0x7f) return false;
  // (ASCII: no word is negative, nor needs `>>> 0`.)
  W0 = w0;
  W1 = w1;
  W2 = w2;
  PACKED = id;
  return true;
}
