// The session's encoder: how a call's values cross into the session's `.wasm` — the fields a
// generated caller (pkg/web/mcp_cancel_calls.js, scripts/write-calls.mjs) reads, an id as
// five scalars, the call's strings as UTF-8 in wasm memory, a cancel's reason. One per
// session, holding every bit of a call's state, so that two sessions (or a session a callback
// calls while another call is under way) never share any.
//
// An id (a request id, a progress token, a cancel's `requestId`) crosses as `num`, `len`,
// `w0`, `w1`, `w2` (src/wasm says how it reads them):
//   - a number: `len` `NUMBER_ID`, the number in `num` (the core judges a fraction, NaN, a
//     number out of range);
//   - an ASCII string of at most `MAX_WORDS_ID` (11) bytes: `len` its length, its bytes
//     packed little-endian in `w0`–`w2` (nothing written to memory);
//   - any other string: `len` `IN_BUFFER` plus its length in bytes of UTF-8, which is the
//     next string in the call's strings buffer;
//   - any other value: `len` its `ID_LEN_*` (absent, null, a boolean, an array, an object, or a
//     peer's string longer than the core reads, `OVERSIZED`).
// Every `w*` is 0 when unused, and `num` when the id is not a number.
//
// A call's strings are written, in the order of its arguments, into the session's scratch
// buffer (`SCRATCH_BYTES`, its address asked once), or into a buffer the core makes for that
// call (`input`) when their UTF-8 may need more; an absent string is `NO_STRING`.

import * as calls from "../pkg/web/mcp_cancel_calls.js";
import {
  ID_LEN_ABSENT,
  ID_LEN_ARRAY,
  ID_LEN_BOOLEAN,
  ID_LEN_NULL,
  ID_LEN_OBJECT,
  ID_LEN_OVERSIZED,
  IN_BUFFER,
  MAX_PEER_STRING,
  MAX_WORDS_ID as CORE_MAX_WORDS_ID,
  NO_STRING,
  NUMBER_ID,
  REASONS_ERROR,
  REASONS_NONE,
  REASONS_OTHER,
  REASONS_TEXT,
  SCRATCH_BYTES,
} from "../pkg/web/mcp_cancel_tables.js";
import { member } from "./reader.js";

/** The longest string id `packWords` packs: the core's `maxWordsId`, at most its 11 cases. */
const MAX_WORDS_ID = Math.min(CORE_MAX_WORDS_ID, 11);
/** The longest string written by hand, a byte per character when it is ASCII (longer: `TextEncoder`). */
const BY_HAND = 64;
const EMPTY_VIEW = new Uint8Array(0);
const UTF8 = new TextEncoder();

/**
 * A string of the peer's longer than the core reads (`MAX_PEER_STRING`), as an id: it crosses
 * as `ID_LEN_OVERSIZED`, its content not at all (`peerValue`).
 */
export const OVERSIZED = Object.freeze({ oversized: true });

/** `v`, a value the peer sent, as it crosses as an id: a string longer than the core reads is `OVERSIZED`. */
export function peerValue(v) {
  return typeof v === "string" && v.length > MAX_PEER_STRING ? OVERSIZED : v;
}

export class Encoder {
  /**
   * @param {{ wasm: any, h: number }} core the session's core
   * @param {() => WebAssembly.Memory} memory the instance's memory
   */
  constructor(core, memory) {
    this.core = core;
    this.memory = memory;
    // The id crossed last (`crossId`).
    this.num = 0;
    this.len = 0;
    this.w0 = 0;
    this.w1 = 0;
    this.w2 = 0;
    // The string id packed last and its words: a request's id is most often crossed again
    // (its response, the peer's cancel, our response to the peer's request).
    this.packed = undefined;
    this.pw0 = 0;
    this.pw1 = 0;
    this.pw2 = 0;
    // The call's strings: at most `bound` bytes of UTF-8, written at `at` in `view` (chosen
    // at the first string that needs it: `undefined` until then).
    this.bound = 0;
    /** @type {Uint8Array | undefined} */
    this.view = undefined;
    this.at = 0;
    // The scratch buffer's address, asked the first time a string needs it (most sessions
    // never do, and the first session of a process starts sooner), and a view of it.
    this.scratchAt = 0;
    this.scratchView = EMPTY_VIEW;
    // Every field the generated callers read, as their arguments (one shape for all calls).
    calls.initArguments(this);
  }

  /** `s`'s UTF-16 length when it is a string, else 0: its share of a call's `open`. */
  size(s) {
    return typeof s === "string" ? s.length : 0;
  }

  /** A call starts whose strings (ids that may cross as one included) have `units` UTF-16 code units. */
  open(units) {
    this.bound = 3 * units;
    this.view = undefined;
    this.at = 0;
  }

  /** Writes string `s` as the call's next string: its length in bytes, `NO_STRING` when absent (or nowhere to write it). */
  put(s) {
    if (s === undefined) return NO_STRING;
    if (s.length === 0) return 0;
    return (this.view ?? this.#select()).length === 0 ? NO_STRING : this.#write(s);
  }

  /**
   * Crosses the id `v` into `num`, `len`, `w0`–`w2` when it needs no strings buffer — a
   * number, an absent id, an ASCII string of at most `MAX_WORDS_ID` bytes as words — and says
   * whether it did (else nothing is crossed: `crossId` takes it). The generated callers' path
   * for most calls.
   */
  words(v) {
    if (typeof v === "number") {
      this.num = v;
      this.len = NUMBER_ID;
    } else if (v === undefined) {
      this.num = 0;
      this.len = ID_LEN_ABSENT;
    } else {
      if (typeof v !== "string" || !this.packs(v)) return false;
      this.num = 0;
      this.len = v.length;
      this.w0 = this.pw0;
      this.w1 = this.pw1;
      this.w2 = this.pw2;
      return true;
    }
    this.w0 = 0;
    this.w1 = 0;
    this.w2 = 0;
    return true;
  }

  /** Whether the string id `v` packs into words (`packWords`, or the id packed last): its words in `pw0`–`pw2`. */
  packs(v) {
    return v === this.packed || (v.length <= MAX_WORDS_ID && packWords(this, v));
  }

  /** Crosses the id `v` into `num`, `len`, `w0`–`w2`; a string that does not pack into words as the call's next string. */
  crossId(v) {
    if (this.words(v)) return;
    this.num = 0;
    this.w0 = 0;
    this.w1 = 0;
    this.w2 = 0;
    if (typeof v !== "string") this.len = lenOf(v);
    else this.len = (this.view ?? this.#select()).length === 0 ? ID_LEN_ABSENT : IN_BUFFER + this.#write(v);
  }

  /**
   * A cancel's `reason` as it crosses to the core (the fields `reasonKind`, `reason`,
   * `message` of `cancel`): a string as it is; an object with a string `name` (an `Error`, a
   * `DOMException`) as its `name` and its `message` (when a string); anything else as its
   * JSON, when `JSON.stringify` gives a string. The core decides what each becomes on the
   * wire (its reason policy). Set the call's other fields after this: it runs the reason's
   * getters.
   */
  crossReason(reason) {
    // Every member read first: a getter (or `toJSON`) may call the session, whose calls use
    // these fields too.
    let kind = REASONS_OTHER;
    let text;
    let message;
    if (typeof reason === "string") {
      kind = REASONS_TEXT;
      text = reason;
    } else if (reason === undefined) {
      kind = REASONS_NONE;
    } else {
      const name = member(reason, "name");
      if (typeof name === "string") {
        const m = member(reason, "message");
        kind = REASONS_ERROR;
        text = name;
        message = typeof m === "string" ? m : undefined;
      } else {
        try {
          const json = JSON.stringify(reason);
          if (typeof json === "string") text = json;
        } catch {}
      }
    }
    this.reasonKind = kind;
    this.reason = text;
    this.message = message;
  }

  /**
   * Where the call's strings go: the scratch buffer when `bound` bytes fit, else the call's
   * input buffer (`input`); an empty view when the core gives no address (a session it does
   * not have), so that nothing is written. A view over memory that grew is detached
   * (`byteLength` 0) and made again.
   */
  #select() {
    const bound = this.bound;
    if (bound <= SCRATCH_BYTES) {
      if (this.scratchView.byteLength === 0) {
        if (this.scratchAt === 0) this.scratchAt = calls.scratch(this.core);
        this.scratchView = this.scratchAt === 0 ? EMPTY_VIEW : new Uint8Array(this.memory().buffer, this.scratchAt, SCRATCH_BYTES);
      }
      return (this.view = this.scratchView);
    }
    this.bytes = bound;
    const at = calls.input(this.core, this);
    return (this.view = at === 0 ? EMPTY_VIEW : new Uint8Array(this.memory().buffer, at, bound));
  }

  /**
   * Writes `s` at `at` in the chosen view (which `bound` makes large enough): its length in
   * bytes. A short ASCII string byte by byte, anything else by `TextEncoder`, which writes an
   * unpaired surrogate as U+FFFD, as any string crossing into wasm memory is.
   */
  #write(s) {
    const view = /** @type {Uint8Array} */ (this.view);
    const at = this.at;
    const n = s.length;
    if (n <= BY_HAND) {
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        view[at + i] = c;
      }
      if (i === n) {
        this.at = at + n;
        return n;
      }
    }
    const written = UTF8.encodeInto(s, view.subarray(at)).written;
    this.at = at + written;
    return written;
  }
}

/** The `len` of an id that is neither a number nor a string. */
function lenOf(v) {
  if (v === undefined) return ID_LEN_ABSENT;
  if (v === null) return ID_LEN_NULL;
  if (typeof v === "boolean") return ID_LEN_BOOLEAN;
  if (v === OVERSIZED) return ID_LEN_OVERSIZED;
  return Array.isArray(v) ? ID_LEN_ARRAY : ID_LEN_OBJECT;
}

/**
 * Packs an ASCII string id of at most `MAX_WORDS_ID` (11) bytes into `e.pw0`–`e.pw2` and
 * remembers it as `e.packed`: true when it did. Unrolled by length (no loop: bench scenario
 * 1b with string ids), the ASCII check once at the end over every character, and kept under
 * V8's size for inlining (460 bytes of bytecode, Node 20), so that V8 inlines it into its
 * caller (scenario 1b with string ids: 92 ns, against 106 ns when it is not inlined).
 */
function packWords(e, id) {
  const n = id.length;
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
  e.pw0 = w0;
  e.pw1 = w1;
  e.pw2 = w2;
  e.packed = id;
  return true;
}
