// Resumable response streams for `mcp-cancel bridge --stdio`: what a
// 2025-era client needs to resume a response stream that closed under it (Streamable HTTP,
// 2025-03-26 .. 2025-11-25, "Resumability and Redelivery": a GET with `Last-Event-ID`), and
// what tells the relay's core that a stream closed or was resumed. What that means for the
// request (nothing, or a cancel once the resume grace ends) is the core's rule
// (src/core/relay/mod.rs, `Relay::handle_downstream_stream_closed`); this file is plumbing.
//
// One `StreamStore` per session, given to the SDK's StreamableHTTPServerTransport as its
// `eventStore`. The SDK primes every POST response stream of a client on 2025-11-25 with an
// event id, stores each message it sends on a stream, and replays a stream's messages after
// the `Last-Event-ID` a client resumes with. The store learns which requests a stream
// carries from `exchange()`: the bridge runs each HTTP exchange of the session inside it
// (an AsyncLocalStorage context), so the stream the SDK primes during a POST is that POST's.
//
// Bounds: a stream's messages are dropped when the stream ends with its answers delivered
// live, or `keepLost` ms after it closed without a resume; at most MAX_EVENTS_PER_STREAM
// are kept per stream (a resume from an older event gets an error, never a replay with a
// gap), MAX_STANDALONE_EVENTS for the session's GET stream.

import { AsyncLocalStorage } from "node:async_hooks";

/** The most messages kept for one request's response stream (the oldest are dropped). */
export const MAX_EVENTS_PER_STREAM = 1000;
/** The most messages kept for a session's standalone GET stream (server notifications). */
export const MAX_STANDALONE_EVENTS = 100;

/** The HTTP exchange being handled (`{ ids, stream }`), across the SDK's awaits. */
const exchanges = new AsyncLocalStorage();

/** One stream's messages and the requests it carries. */
class Stream {
  constructor(ids, max) {
    /** The JSON-RPC ids of the POST that opened it. */
    this.ids = ids;
    this.max = max;
    /** `[seq, message]`, oldest first. */
    this.events = [];
    this.nextSeq = 0;
    /** The oldest seq a resume may name (older ones were dropped). */
    this.floor = 0;
    /** The exchange that holds it now (the POST, or the GET that resumed it). */
    this.holder = undefined;
    /** The timer that drops it, once closed without a resume. */
    this.drop = undefined;
  }
}

/**
 * The `eventStore` of one session (the MCP SDK 1.x `EventStore` interface), and the record
 * of which requests each of its streams carries.
 */
export class StreamStore {
  /** @type {Map<string, Stream>} */
  #streams = new Map();
  #keepLost;
  #onResume;

  /**
   * @param {object} options
   * @param {number} options.keepLost ms a stream that closed without its answers is kept for a resume
   * @param {(ids: Array<string | number>) => void} options.onResume a stream carrying `ids` was resumed
   */
  constructor({ keepLost, onResume }) {
    this.#keepLost = keepLost;
    this.#onResume = onResume;
  }

  /**
   * Runs `handle()` (the SDK's `handleRequest` for one HTTP exchange) as exchange `exchange`
   * (`{ ids }`: the ids of the messages in its body); `exchange.stream` is then the stream
   * it opened or resumed, if any.
   */
  exchange(exchange, handle) {
    return exchanges.run(exchange, handle);
  }

  /** The stream a `Last-Event-ID` names, when this store knows it. */
  streamOf(eventId) {
    const id = typeof eventId === "string" ? parseEventId(eventId)?.stream : undefined;
    return id !== undefined && this.#streams.has(id) ? id : undefined;
  }

  /** The ids of the requests stream `id` carries. */
  idsOf(id) {
    return this.#streams.get(id)?.ids ?? [];
  }

  /** Whether `exchange` holds stream `id` (a later resume took over otherwise). */
  holds(id, exchange) {
    return this.#streams.get(id)?.holder === exchange;
  }

  /** Stream `id` ended with every answer delivered: its messages are dropped. */
  ended(id) {
    const stream = this.#streams.get(id);
    if (stream === undefined) return;
    clearTimeout(stream.drop);
    this.#streams.delete(id);
  }

  /** Stream `id` closed before its answers: kept for a resume, then dropped. */
  lost(id) {
    const stream = this.#streams.get(id);
    if (stream === undefined) return;
    stream.holder = undefined;
    clearTimeout(stream.drop);
    stream.drop = setTimeout(() => this.#streams.delete(id), this.#keepLost);
    stream.drop.unref?.();
  }

  /** Drops everything (the session ended). */
  clear() {
    for (const stream of this.#streams.values()) clearTimeout(stream.drop);
    this.#streams.clear();
  }

  // ----- the SDK's EventStore -----

  /** Stores `message` sent on stream `streamId`; its event id is `<streamId>.<seq>`. */
  async storeEvent(streamId, message) {
    let stream = this.#streams.get(streamId);
    if (stream === undefined) {
      // A new stream: the exchange being handled opened it (the SDK primes a POST's stream
      // before it hands on its messages). The session's GET stream has no exchange of its own.
      const exchange = exchanges.getStore();
      const standalone = exchange === undefined || exchange.stream !== undefined;
      stream = new Stream(standalone ? [] : exchange.ids, standalone ? MAX_STANDALONE_EVENTS : MAX_EVENTS_PER_STREAM);
      this.#streams.set(streamId, stream);
      if (!standalone) {
        exchange.stream = streamId;
        stream.holder = exchange;
      }
    }
    const seq = stream.nextSeq++;
    stream.events.push([seq, message]);
    if (stream.events.length > stream.max) {
      stream.events.shift();
      stream.floor = stream.events[0][0] - 1;
    }
    return `${streamId}.${seq}`;
  }

  /**
   * Sends the messages of the stream `lastEventId` names that came after it; the exchange
   * being handled (the client's GET) now holds that stream. Throws (the SDK answers 500)
   * for an id it does not know or whose successors were dropped.
   */
  async replayEventsAfter(lastEventId, { send }) {
    const at = parseEventId(lastEventId);
    const stream = at === undefined ? undefined : this.#streams.get(at.stream);
    if (stream === undefined) throw new Error("unknown Last-Event-ID");
    if (at.seq < stream.floor) throw new Error("the events after this Last-Event-ID are no longer kept");
    clearTimeout(stream.drop);
    stream.drop = undefined;
    const exchange = exchanges.getStore();
    if (exchange !== undefined) {
      exchange.stream = at.stream;
      stream.holder = exchange;
    }
    this.#onResume(stream.ids);
    for (const [seq, message] of stream.events) {
      // The priming event carries no message.
      if (seq > at.seq && message !== null && typeof message === "object" && "jsonrpc" in message) {
        await send(`${at.stream}.${seq}`, message);
      }
    }
    return at.stream;
  }
}

/** `{ stream, seq }` of an event id `<stream>.<seq>`, or undefined. */
function parseEventId(eventId) {
  const dot = eventId.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const seq = Number(eventId.slice(dot + 1));
  return Number.isSafeInteger(seq) && seq >= 0 ? { stream: eventId.slice(0, dot), seq } : undefined;
}
