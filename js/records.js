// The core's output as the session's wasm writes it (`SessionCore.takeOutput()`: bytes),
// read into the objects js/session.js's `Output` acts on. What the records are, field by
// field, is the core's: src/wasm/output.rs writes them and gives their schema
// (`constantsJson().records`); this file only reads numbers, texts and names by it.

/** @type {TextDecoder | undefined} made at the first text read (not at start-up). */
let decoder;

/**
 * @typedef {object} RecordSchema `constantsJson().records`
 * @property {string[]} kinds each record kind's name (`o`), by its byte
 * @property {[string, string][][]} fields each record kind's fields `[member, kind]`, in order
 * @property {[string, [string, string][]][]} events each event type's name and fields after
 *   `direction`, by its byte
 * @property {Record<string, string[]>} names each set of names (a field kind) by index
 */

/**
 * The records in `bytes`, oldest first: `{ o, requestId, … }` (the members
 * `SessionCore.takeOutput()`'s doc comment lists; an event's is `{ o: "event", event }`,
 * `event` the object `onEvent` gets, its members in the order the core serializes them).
 * A field kind ending in `?` is optional: absent, its member is left out.
 * @param {Uint8Array} bytes
 * @param {RecordSchema} schema
 * @returns {any[]}
 */
export function readRecords(bytes, schema) {
  const reader = new Reader(bytes, schema);
  const records = [];
  while (reader.at < bytes.length) {
    const kind = reader.byte();
    records.push(reader.fields({ o: schema.kinds[kind] }, schema.fields[kind]));
  }
  return records;
}

class Reader {
  /**
   * @param {Uint8Array} bytes
   * @param {RecordSchema} schema
   */
  constructor(bytes, schema) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.schema = schema;
    this.at = 0;
  }

  byte() {
    return this.bytes[this.at++];
  }

  number() {
    const n = this.view.getFloat64(this.at, true);
    this.at += 8;
    return n;
  }

  text() {
    const length = this.view.getUint32(this.at, true);
    const start = this.at + 4;
    this.at = start + length;
    // `ignoreBOM`: a text that starts with U+FEFF keeps it (as wasm-bindgen's own decoder and
    // `JSON.parse` do); by default each `decode()` would drop it.
    decoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
    return decoder.decode(this.bytes.subarray(start, this.at));
  }

  /** `object` with each of `fields` (`[member, kind]`) read into it. */
  fields(object, fields) {
    for (const [member, kind] of fields) {
      if (kind.endsWith("?")) {
        if (this.byte() === 0) continue;
        object[member] = this.value(kind.slice(0, -1));
      } else {
        object[member] = this.value(kind);
      }
    }
    return object;
  }

  value(kind) {
    switch (kind) {
      case "id":
        return this.byte() === 0 ? this.number() : this.text();
      case "text":
        return this.text();
      case "bool":
        return this.byte() === 1;
      case "number":
        return this.number();
      case "event": {
        const [type, fields] = this.schema.events[this.byte()];
        const direction = this.value("direction");
        return this.fields({ direction, type }, fields);
      }
      default:
        // A name of the set `kind` (`schema.names`), by its index.
        return this.schema.names[kind][this.byte()];
    }
  }
}
