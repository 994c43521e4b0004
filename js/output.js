// The output runner: does what the core's output says, in the order the core made it — sends a
// cancel, closes a stream, aborts or releases a request's JS objects, calls `onTimeout` and
// `onEvent` — and keeps the session's one timer armed for the core's next deadline. Also the
// JS objects of the watched requests it aborts and releases (`RequestObjects`), and the
// refusal of a call the core refused, read from the core's record. It decides nothing: every
// record is the core's (src/wasm/output.rs writes them, js/records.js reads them).

import * as calls from "../pkg/web/mcp_cancel_calls.js";
import { VERDICTS_BUSY as BUSY } from "../pkg/web/mcp_cancel_tables.js";
import { InvalidArgumentError, UsageError } from "./errors.js";
import { cancelledMessage, tasksCancelMessage } from "./reader.js";
import { RecordReader } from "./records.js";
import { offAbort } from "./signals.js";

/**
 * The JS objects of a session's watched requests, which live here, not in wasm memory: for
 * ours, by request id, the listener on the caller's signal and the controller of the
 * request's own signal; for the peer's, the controller of the signal asked for
 * (`inboundSignal`). The core's records say when to abort or release them.
 */
export class RequestObjects {
  /** @type {Map<string | number, { signal?: AbortSignal, listener?: () => void, controller?: AbortController }>} */
  ours = new Map();
  /** @type {Map<string | number, AbortController>} */
  peers = new Map();

  /** Takes our request `id`'s objects out (`undefined`: none). */
  takeOurs(id) {
    return takeFrom(this.ours, id);
  }

  /** Takes the controller of the peer's request `id` out (`undefined`: none). */
  takePeers(id) {
    return takeFrom(this.peers, id);
  }

  /** The session closed: every listener on a caller's signal goes, as a `settled` record would have it. */
  releaseAll() {
    for (const entry of this.ours.values()) unlisten(entry);
    this.ours.clear();
    this.peers.clear();
  }
}

/**
 * Does the core's output (`takeOutput`: records, oldest first), in the order the core made
 * it (the wasm layer calls no JS), and keeps the session's one timer armed for the core's
 * next deadline. Every call into the core that left output or a new next deadline says so
 * (`BUSY` in what it returns): `after()` flushes then, right after the call, before its
 * caller goes on.
 *
 * - Every queued record is taken before any callback runs: a callback may call the session,
 *   and that call's own flush sees only what it queued itself.
 * - The JS objects of the requests the records end are taken out of the session's maps
 *   before any callback runs (`takeObjects`): a callback (`send`, `onEvent`, `onTimeout`, a
 *   listener of the request's own signal) may track a new request with the same id, whose
 *   objects the ended request's records must not touch.
 * - The call in progress gives back its own values (`enter`): the caller's id and reason
 *   (`cancel()`, an abort) or the peer's `requestId` and `reason` (its cancel), which the
 *   records carry as copies out of wasm memory (an unpaired surrogate there is U+FFFD); and
 *   without `send` the first message is kept for the caller (`captured`), not sent.
 */
export class Output {
  /**
   * @param {any} s the session's settings (`send`, `closeStream`, `onTimeout`, `onEvent`)
   * @param {RequestObjects} objects
   * @param {{ wasm: any, h: number }} core
   * @param {() => WebAssembly.Memory} memory the memory the core's records are read from
   * @param {any} w the core's tables
   */
  constructor(s, objects, core, memory, w) {
    this.send = s.send;
    this.closeStream = s.closeStream;
    this.onTimeout = s.onTimeout;
    this.onCascade = s.onCascade;
    this.cascadeReason = s.cascadeReason;
    this.onEvent = s.onEvent;
    this.objects = objects;
    /** @type {{ wasm: any, h: number } | undefined} the session's core (`undefined` once the session closed, `detach`) */
    this.core = core;
    this.memory = memory;
    this.wire = w;
    /** @type {RecordReader | undefined} made at the first records read */
    this.reader = undefined;
    /** The values of the call in progress (`enter`). */
    this.call = NO_CALL;
    /** The first message the call in progress kept (`enter`'s `keep`). */
    this.captured = undefined;
    this.timer = undefined;
  }

  /**
   * `v`, what a call into the core returned, without `BUSY`: when the call left work
   * (`BUSY`: output, or the timer to arm again), `flush()` does it first — right after the
   * call, before its caller does anything with `v`.
   */
  after(v) {
    if ((v & BUSY) === 0) return v;
    this.flush();
    return v & ~BUSY;
  }

  /** The session closed: no more output, no timer. */
  detach() {
    this.core = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * The values of a call that starts (`id` and `reason` the caller's, `text` the peer's
   * reason; `keep`: keep its first message instead of sending it); returns them, for `leave`,
   * which gives the outer call's back.
   */
  enter(id, reason, text, keep) {
    const call = { id, reason, text, keep, reasonText: typeof reason === "string" && !wellFormedCopy(reason).includes("\uFFFD") ? reason : undefined, outer: this.call, outerCaptured: this.captured };
    this.call = call;
    this.captured = undefined;
    return call;
  }

  leave(call) {
    this.call = call.outer;
    this.captured = call.outerCaptured;
  }

  flush() {
    const core = this.core;
    if (core === undefined) return;
    // The values of the call whose output this is; a call a callback makes gets none of them.
    const call = this.call;
    this.call = NO_CALL;
    try {
      for (;;) {
        const records = this.records(calls.takeOutput(core), call);
        if (records === undefined) break;
        const taken = this.takeObjects(records, call);
        for (const r of records) this.carryOut(r, taken, call);
        // A callback closed the session.
        if (this.core === undefined) return;
      }
      this.arm(core);
    } finally {
      this.call = call;
    }
  }

  /**
   * The records of the `n` bytes `takeOutput` or `takeError` took (`undefined` for none),
   * read where the core wrote them (`outputAt`): all of them, before anything calls the core
   * again, which may write the next ones there. The strings of `call` (its id, its reason,
   * the peer's reason) are read as themselves where the records hold a copy of them.
   */
  records(n, call = this.call) {
    const core = /** @type {{ wasm: any, h: number }} */ (this.core);
    if (n === 0) return undefined;
    return (this.reader ??= new RecordReader(this.wire.records)).read(this.memory().buffer, calls.outputAt(core), n, typeof call.id === "string" ? call.id : undefined, call.reasonText, call.text);
  }

  /**
   * The JS objects of the requests `records` end, each once, taken before any callback runs:
   * `ours` and `peers`, by the records' `requestId` (`undefined` when none is taken).
   */
  takeObjects(records, call) {
    const objects = this.objects;
    let taken;
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      const o = r.o;
      const ours = o === "cancelled" || o === "settled";
      if (!ours && !((o === "peerCancelled" && r.watched) || o === "inboundSettled")) continue;
      taken ??= { ours: new Map(), peers: new Map() };
      const side = ours ? taken.ours : taken.peers;
      const key = r.requestId;
      if (side.has(key)) continue;
      const id = ownValue(call.id, key);
      side.set(key, ours ? objects.takeOurs(id) : objects.takePeers(id));
    }
    return taken;
  }

  /** Does one record, with the objects `takeObjects` took for it. */
  carryOut(r, taken, call) {
    switch (r.o) {
      case "notify":
      case "tasksCancel":
        if (call.keep && this.captured === undefined) {
          this.captured = r;
          return;
        }
        return this.transmit(r, call);
      case "close":
        return this.transmit(r, call);
      case "cancelled":
        return this.cancelled(r, taken?.ours.get(r.requestId), call);
      case "settled": {
        const entry = taken?.ours.get(r.requestId);
        if (entry !== undefined) unlisten(entry);
        return;
      }
      case "peerCancelled": {
        const controller = r.watched ? taken?.peers.get(r.requestId) : undefined;
        // The peer's reason as is (what the MCP TypeScript SDK's handlers see).
        if (controller !== undefined) controller.abort(ownValue(call.text, r.reason));
        return;
      }
      case "event":
        if (this.onEvent !== undefined) {
          // A throwing handler must not break the session: its error is dropped.
          try {
            this.onEvent(r.event);
          } catch {}
        }
        return;
      // "inboundSettled": its objects were taken, nothing else to do.
    }
  }

  /** Puts a cancel on the wire; what `send` or `closeStream` throws is a `send-failed` event. */
  transmit(r, call) {
    try {
      if (r.o === "close") {
        if (this.closeStream === undefined) throw noExit("closeStream");
        this.closeStream(r.requestId);
      } else {
        if (this.send === undefined) throw noExit("send");
        this.send(this.message(r, call));
      }
    } catch (error) {
      this.sendFailed(r.requestId, error);
    }
  }

  /**
   * The message of a `notify` or `tasksCancel` record: a `notifications/cancelled` whose
   * `requestId` and `reason` are the caller's own values when they are the record's, or the
   * `tasks/cancel` request.
   */
  message(r, call = this.call) {
    if (r.o === "tasksCancel") return tasksCancelMessage(this.wire, r.id, r.taskId);
    const reason = call.reasonText !== undefined && call.reasonText === r.reason ? call.reason : r.reason;
    return cancelledMessage(this.wire, ownValue(call.id, r.requestId), reason);
  }

  /**
   * Our request was cancelled: abort its own signal; after a timeout, `onTimeout` too; after
   * the peer cancelled the request it was sent for, `onCascade`.
   */
  cancelled(r, entry, call) {
    if (r.timeout === undefined && !r.cascaded) {
      // The caller's reason (`undefined`: the default `AbortError`, made only when the
      // request's signal was asked for).
      if (entry !== undefined) abortOwn(entry, call.reason);
      return;
    }
    const error = r.cascaded
      ? domException(this.cascadeReason ?? this.wire.cascadeError.message, "AbortError")
      : domException(r.message, "TimeoutError");
    if (entry !== undefined) abortOwn(entry, error);
    const callback = r.cascaded ? this.onCascade : this.onTimeout;
    if (callback === undefined) return;
    try {
      callback(ownValue(call.id, r.requestId), error);
    } catch (thrown) {
      this.sendFailed(r.requestId, thrown);
    }
  }

  sendFailed(requestId, error) {
    if (this.onEvent === undefined) return;
    try {
      this.onEvent({ direction: "outbound", type: "send-failed", requestId, error });
    } catch {}
  }

  /** Keeps the one timer armed for the core's next deadline (in steps of at most 2^31 − 1 ms). */
  arm(core) {
    const delay = calls.nextDeadline(core);
    if (delay === -2) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (delay < 0) return;
    const output = this;
    this.timer = setTimeout(() => {
      output.timer = undefined;
      const core = output.core;
      if (core !== undefined && (calls.fireTimer(core) & BUSY) !== 0) output.flush();
    }, delay);
    // Node: a pending timeout must not keep the process alive by itself.
    this.timer?.unref?.();
  }

  /**
   * The error of a call the core refused (it returned `verdicts.failed`): its `takeError()`
   * (a `"refused"` record), an `InvalidArgumentError` or a `UsageError` with the core's code
   * and text, about the caller's own value that the core names (`of`: the request id `id`,
   * the progress token `token`, the value `value`) or about the core's request id.
   */
  refusal(id, token, value) {
    const core = this.core;
    const e = core === undefined ? undefined : this.records(calls.takeError(core))?.[0];
    if (e === undefined) return new Error("mcp-cancel: the core refused a call without saying why");
    const requestId = "requestId" in e ? e.requestId : e.of === "id" ? id : e.of === "token" ? token : e.of === "value" ? value : undefined;
    return new (e.name === "UsageError" ? UsageError : InvalidArgumentError)(e.message, e.code, requestId);
  }
}

/** No call in progress: no values to give back. */
const NO_CALL = Object.freeze({ id: undefined, reason: undefined, text: undefined, keep: false, reasonText: undefined, outer: undefined, outerCaptured: undefined });

/**
 * A request id or a peer's string of a record (`copy`, out of wasm memory): the call's own
 * value `own` when `copy` is its copy, else `copy`.
 */
function ownValue(own, copy) {
  if (typeof copy === "string" && typeof own === "string" && (own === copy || wellFormedCopy(own) === copy)) return own;
  return copy;
}

/** `s` as its UTF-8 copy in wasm memory reads: each unpaired surrogate U+FFFD. */
function wellFormedCopy(s) {
  return s.toWellFormed?.() ?? s;
}

function noExit(option) {
  return new Error(`mcp-cancel: a cancel was made, but the session has no \`${option}\` option`);
}

/**
 * A `DOMException` named `name` (`TimeoutError` after a timeout, `AbortError` for a nested
 * request whose parent the peer cancelled), or an `Error` so named where the host has none.
 */
function domException(message, name) {
  if (typeof DOMException === "function") return new DOMException(message, name);
  const error = new Error(message);
  error.name = name;
  return error;
}

/**
 * Aborts the own signal of our watched request whose JS objects are `entry` (if one was
 * asked for) with the cancel's `reason` — `undefined`: the caller gave none, and the DOM's
 * default is an `AbortError`.
 */
function abortOwn(entry, reason) {
  entry?.controller?.abort(reason === undefined ? new DOMException("Request cancelled", "AbortError") : reason);
}

/**
 * Removes the listener on the caller's signal of our settled request whose JS objects are
 * `entry`. The caller's signal: an `AbortSignal`, or an object with `addEventListener` only
 * (then the listener stays, and does nothing). Nothing it throws reaches the caller or the
 * core.
 */
export function unlisten(entry) {
  if (entry.listener === undefined) return;
  try {
    offAbort(entry.signal, entry.listener);
  } catch {}
}

/**
 * The key in `map` of request id `id` as the core's output gave it: `id` itself, or the key
 * that is the same id to the core — ids cross into wasm as UTF-8, where each unpaired
 * surrogate becomes U+FFFD, so `id` may be a copy out of wasm memory (a timeout, `close()`)
 * or the peer's own spelling of the id it cancels. The scan runs only for a string id that
 * is not a key and is not well formed or has U+FFFD.
 * @param {Map<string | number, any>} map
 * @param {string | number} id
 */
function keyIn(map, id) {
  if (typeof id !== "string" || map.has(id)) return id;
  // `toWellFormed` (ES2024) is what the UTF-8 conversion does; without it, no match is found.
  const core = id.toWellFormed?.();
  if (core === undefined || (core === id && !id.includes("\uFFFD"))) return id;
  for (const key of map.keys()) if (typeof key === "string" && key.toWellFormed?.() === core) return key;
  return id;
}

/**
 * Takes what `map` holds for request `id` (its key as `keyIn` finds it) out of it: the value,
 * or `undefined` when it holds none. A value is never `undefined`; `id` itself is tried
 * first, so the common case is a `get` and a `delete` (no `has` before them: bench scenario
 * 3 with string ids).
 * @param {Map<string | number, any>} map
 * @param {string | number} id
 */
function takeFrom(map, id) {
  let key = id;
  let value = map.get(key);
  if (value === undefined) {
    // Not under `id` itself: a string id may be held under the core's spelling of it.
    key = keyIn(map, id);
    if (key === id) return undefined;
    value = map.get(key);
    if (value === undefined) return undefined;
  }
  map.delete(key);
  return value;
}
