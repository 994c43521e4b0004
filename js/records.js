// The core's output as the session's wasm writes it (`takeOutput`, `takeError`: bytes in wasm
// memory), read into the objects the output runner (js/output.js) acts on. What the records
// are, field by field, is the core's: src/wasm/output.rs writes them and gives their schema
// (`constantsJson().records`); this file only reads numbers, texts and names by it.

/** @type {TextDecoder | undefined} a cache: made at the first text that is not short ASCII (not at start-up). */
let cachedDecoder;

/** The longest text read byte by byte when it is ASCII (longer: `TextDecoder`). */
const BY_HAND = 32;

/**
 * @typedef {object} RecordSchema `constantsJson().records`
 * @property {string[]} kinds each record kind's name (`o`), by its byte
 * @property {[string, string][][]} fields each record kind's fields `[member, kind]`, in order
 * @property {[string, [string, string][]][]} events each event type's name and fields after
 *   `direction`, by its byte
 * @property {Record<string, string[]>} names each set of names (a field kind) by index
 */

/**
 * A field as the reader takes it: its member, its kind without the `?` of an optional one,
 * and whether it is optional (absent: its member is left out).
 * @typedef {{ member: string, kind: string, optional: boolean }} Field
 */

/**
 * Reads the records of one session's core, one take after another (`read`). Holds a view of
 * the module's memory, made again when the memory grew (its buffer is another then).
 */
export class RecordReader {
  /** @param {RecordSchema} schema */
  constructor(schema) {
    this.schema = schema;
    /** @type {Field[][]} each kind's fields */
    this.kinds = schema.fields.map(compiled);
    /** @type {[string, Field[]][]} each event type's name and fields */
    this.events = schema.events.map(([type, fields]) => [type, compiled(fields)]);
    this.bytes = new Uint8Array(0);
    /** @type {DataView | undefined} */
    this.view = undefined;
    this.at = 0;
    // The strings of the call whose records these are (`read`'s `known`).
    this.known0 = undefined;
    this.known1 = undefined;
    this.known2 = undefined;
  }

  /**
   * The records of the `n` bytes at `start` in `buffer` (the module's memory), oldest first:
   * `{ o, requestId, … }` (the members `takeOutput`'s doc comment lists; an event's is
   * `{ o: "event", event }`, `event` the object `onEvent` gets, its members in the order the
   * core serializes them). `known0`–`known2`: strings the records may hold a copy of (the
   * call's id, its reason, the peer's reason): a text that is the same ASCII is that string
   * itself, not a new one (no decoding; and the caller finds its own value by `===`).
   * @param {ArrayBuffer} buffer
   * @param {number} start
   * @param {number} n
   * @param {string | undefined} [known0]
   * @param {string | undefined} [known1]
   * @param {string | undefined} [known2]
   * @returns {any[]}
   */
  read(buffer, start, n, known0, known1, known2) {
    this.known0 = known0;
    this.known1 = known1;
    this.known2 = known2;
    if (this.bytes.buffer !== buffer) {
      this.bytes = new Uint8Array(buffer);
      this.view = new DataView(buffer);
    }
    const kinds = this.schema.kinds;
    const end = start + n;
    const records = [];
    this.at = start;
    while (this.at < end) {
      const kind = this.bytes[this.at++];
      records.push(this.fields({ o: kinds[kind] }, this.kinds[kind]));
    }
    return records;
  }

  /** `object` with each of `fields` read into it. */
  fields(object, fields) {
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      if (f.optional && this.bytes[this.at++] === 0) continue;
      object[f.member] = this.value(f.kind);
    }
    return object;
  }

  number() {
    const n = /** @type {DataView} */ (this.view).getFloat64(this.at, true);
    this.at += 8;
    return n;
  }

  text() {
    const bytes = this.bytes;
    const length = /** @type {DataView} */ (this.view).getUint32(this.at, true);
    const start = this.at + 4;
    const end = start + length;
    this.at = end;
    const known = this.known(start, length);
    if (known !== undefined) return known;
    if (length <= BY_HAND) {
      let s = "";
      let i = start;
      for (; i + 4 <= end; i += 4) {
        const a = bytes[i];
        const b = bytes[i + 1];
        const c = bytes[i + 2];
        const d = bytes[i + 3];
        if ((a | b | c | d) > 0x7f) break;
        s += String.fromCharCode(a, b, c, d);
      }
      for (; i < end; i++) {
        const c = bytes[i];
        if (c > 0x7f) break;
        s += String.fromCharCode(c);
      }
      if (i === end) return s;
    }
    // `ignoreBOM`: a text that starts with U+FEFF keeps it (as wasm-bindgen's own decoder and
    // `JSON.parse` do); by default each `decode()` would drop it.
    cachedDecoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
    return cachedDecoder.decode(bytes.subarray(start, end));
  }

  /** The known string whose ASCII the `length` bytes at `start` are, if one is. */
  known(start, length) {
    if (this.same(this.known0, start, length)) return this.known0;
    if (this.same(this.known1, start, length)) return this.known1;
    if (this.same(this.known2, start, length)) return this.known2;
    return undefined;
  }

  /** Whether the `length` bytes at `start` are the ASCII string `s`. */
  same(s, start, length) {
    if (s === undefined || s.length !== length) return false;
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) {
      const c = bytes[start + i];
      if (c > 0x7f || c !== s.charCodeAt(i)) return false;
    }
    return true;
  }

  value(kind) {
    switch (kind) {
      case "id":
        return this.bytes[this.at++] === 0 ? this.number() : this.text();
      case "text":
        return this.text();
      case "bool":
        return this.bytes[this.at++] === 1;
      case "number":
        return this.number();
      case "event": {
        const [type, fields] = this.events[this.bytes[this.at++]];
        const direction = this.value("direction");
        return this.fields({ direction, type }, fields);
      }
      default:
        // A name of the set `kind` (`schema.names`), by its index.
        return this.schema.names[kind][this.bytes[this.at++]];
    }
  }
}

/** A kind's `[member, kind]` fields as the reader takes them. */
function compiled(fields) {
  return fields.map(([member, kind]) => (kind.endsWith("?") ? { member, kind: kind.slice(0, -1), optional: true } : { member, kind, optional: false }));
}
