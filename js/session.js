// CancellationSession: mcp-cancel's public API over the wasm session (src/wasm/exports.rs).
//
// This file decides nothing. Each method checks what is the caller's to check (a closed
// session, the shape of its options), makes one call into the core per message — routed by
// js/routing.js, its values crossed by the session's encoder (js/encoder.js) through the
// generated caller of each export (pkg/web/mcp_cancel_calls.js) — and maps the number it gets
// back; what the core's output says is done by the session's output runner (js/output.js).
// Every rule — what a message is, which is the handshake, what a revision forbids, what to
// drop, what a cancel carries — is in the Rust core (src/core/message.rs).

import { UsageError } from "./errors.js";
import { Encoder, peerValue } from "./encoder.js";
import { NO_SETTINGS, sessionSettings, trackOptions } from "./options.js";
import { Output, RequestObjects } from "./output.js";
import { codeOf, methodOf, tables } from "./reader.js";
import { EMPTY, filterBatch, onlySignal, progressTokenOf, replacement, Router, sendSignal } from "./routing.js";
import * as calls from "../pkg/web/mcp_cancel_calls.js";
import {
  constantsJson,
  EXITS_CLOSE_STREAM,
  EXITS_SEND,
  VERDICTS_ABORTED as ABORTED,
  VERDICTS_BUSY as BUSY,
  VERDICTS_DROP as DROP,
  VERDICTS_FAILED as FAILED,
  VERDICTS_OPTIONS as OPTIONS,
  VERDICTS_PASS as PASS,
  VERDICTS_SETTLED as SETTLED,
  VERDICTS_TRACKED as TRACKED,
  VERDICTS_WATCHED as WATCHED,
} from "../pkg/web/mcp_cancel_tables.js";
import { isAborted, onAbort, reasonOf } from "./signals.js";

/**
 * @param {() => any} exports the exports of the build's wasm instance (once it is made: a
 *   session is made after it), its `memory` with them. The JS layer calls them through
 *   pkg/web/mcp_cancel_calls.js, numbers in and out (no glue function between): a session is a
 *   handle (`newSession` → a number, `freeSession`) that every other export takes first
 *   (src/wasm/exports.rs).
 * @param {(options: any) => any} [adjustOptions] the entry's default options (DEBUG)
 *
 * The core's tables are pkg/web/mcp_cancel_tables.js (scripts/write-tables.mjs: not in the
 * session's `.wasm`, for its size), the same for every build: their numbers are imported
 * where they are compared with, and the rest (`constantsJson`) is parsed by the first session
 * of any class.
 */
export function createSessionClass(exports, adjustOptions = (o) => o) {
  const env = { exports, wasm: undefined, memory: () => env.wasm.memory, adjustOptions, sessions: undefined };
  return class CancellationSession extends Session {
    // Its name, whatever a minifier calls the class (the Node build is minified).
    static name = "CancellationSession";

    /** @param {unknown} [options] see the README and the typings */
    constructor(options) {
      super(options, env);
    }
  };
}

/**
 * A cache: the core's tables as the JS layer reads them (js/reader.js `tables`, with
 * `cancelledCode`, the code of `notifications/cancelled`), parsed once, by the first session
 * of any class (every build's are the same).
 */
let wire;

/**
 * The JSON-RPC error of a request that timed out, `{ code, message }` (−32001, as the MCP
 * SDKs' `RequestTimeout`), from the core's tables: known once a session was made.
 */
export const timeoutError = () => wire?.timeoutError;

/**
 * The JSON-RPC error of a nested request whose parent the peer cancelled, `{ code, message }`
 * (−32000, as the relay's), from the core's tables: known once a session was made.
 */
export const cascadeError = () => wire?.cascadeError;

/**
 * `session[SENT_REQUEST]()`: whether the last `beforeSend()` passed a request the session
 * now tracks (the core said so). Not part of the public API: `guardTransport` uses it.
 */
// Before `Session`, whose method it names.
export const SENT_REQUEST = Symbol("mcp-cancel.sentRequest");

/**
 * The public API's methods, defined once at the top of this module (not in
 * `createSessionClass`: a class made in the factory is parsed again, all of it, when the
 * first session of a process is made, a start-up cost); each class `createSessionClass`
 * makes extends it with its build's wasm instance and options.
 */
class Session {
  /**
   * The wasm session: `wasm` the instance's exports, `h` its handle, passed first to each
   * (`undefined` once closed).
   * @type {{ wasm: any, h: number } | undefined}
   */
  #core;
  /** The JS objects of the watched requests, ours and the peer's (the output runner aborts and releases them). */
  #objects = new RequestObjects();
  /** How a call's values cross (one per session: no call's state is shared). */
  #encoder;
  /** Which export takes a message, and what of it is read. */
  #router;
  /** Does the core's output. */
  #output;
  /** See `[SENT_REQUEST]()`. */
  #sentRequest = false;
  /** Whether the session has `send` (without it, `cancel()` returns the cancel's message). */
  #hasSend;
  /** Frees the wasm sessions of this build that nothing can call any more (`createSessionClass`). */
  #sessions;

  constructor(options, env) {
    const wasm = (env.wasm ??= env.exports());
    // Frees the wasm sessions that nothing references any more (held: the core, which does
    // not reference the output runner it is registered with). Made here, not by a function
    // of its own: one function fewer to compile at the first session.
    env.sessions ??=
      typeof FinalizationRegistry === "function" ? new FinalizationRegistry((core) => calls.freeSession(core)) : { register() {}, unregister() {} };
    wire ??= prepare(JSON.parse(constantsJson));
    const w = wire;
    const given = env.adjustOptions(options);
    const s = given === undefined || given === null ? NO_SETTINGS : sessionSettings(given, w);
    const h = calls.newSession(wasm, {
      flags: s.flags,
      tombstoneCapacity: s.tombstoneCapacity,
      inboundCapacity: s.inboundCapacity,
      maxReasonBytes: s.maxReasonBytes,
      timeoutMs: s.timeout,
      maxTotalMs: s.maxTotalTimeout,
      exits: (s.send === undefined ? 0 : EXITS_SEND) | (s.closeStream === undefined ? 0 : EXITS_CLOSE_STREAM),
      events: s.onEvent !== undefined,
      seed: Math.random() * 2 ** 52,
    });
    if (h === 0) throw new Error("mcp-cancel: the core could not make a session");
    const core = { wasm, h };
    const output = new Output(s, this.#objects, core, env.memory, w);
    // The session's memory in wasm goes when the session is closed, or when nothing can call
    // it any more: `output` is what the session and its timer hold.
    env.sessions.register(output, core, output);
    const encoder = new Encoder(core, env.memory);
    this.#output = output;
    this.#core = core;
    this.#encoder = encoder;
    this.#router = new Router(core, encoder, output, this.#objects, w);
    this.#sessions = env.sessions;
    this.#hasSend = s.send !== undefined;
    // The settings that are strings (their output, a protocol version's event, done now).
    if (s.genericReason !== undefined || s.timeoutReason !== undefined || s.cascadeReason !== undefined || s.protocolVersion !== undefined) {
      encoder.genericReason = s.genericReason;
      encoder.timeoutReason = s.timeoutReason;
      encoder.cascadeReason = s.cascadeReason;
      encoder.protocolVersion = s.protocolVersion;
      output.after(calls.configure(core, encoder));
    }
  }

  track(id, method, options) {
    const core = this.#live("track");
    const code = typeof method === "string" ? codeOf(wire, method) : -2;
    if (options !== undefined || code === 0) return this.#trackWith(core, id, method, code, options);
    // Without options and with a method the core knows by its code (bench scenario 1b): this
    // method stays small enough for V8 to inline into its caller, with the generated
    // `trackCommon` and the encoder's `words`.
    const e = this.#encoder;
    e.id = id;
    e.methodCode = code;
    const v = calls.trackCommon(core, e);
    if (v === PASS) return;
    // Tracked, and the call left work (an event, the timer to arm); or refused.
    if (this.#output.after(v) === FAILED) throw this.#output.refusal(id);
  }

  /**
   * `track` with options (`undefined` for none): a signal (and whether it has aborted), and
   * what the core reads of `params`; and of a method the core knows by its name only (code 0).
   */
  #trackWith(core, id, method, code, options) {
    // `{ signal }` alone is read here; any other options by js/options.js, which says what is
    // wrong with them (thrown once the core found the id and the method right).
    let signal = onlySignal(options);
    const o = signal === undefined ? trackOptions(options, wire) : undefined;
    if (o !== undefined) signal = o.signal;
    // The caller's signal: none, live or aborted. A signal-like object whose `aborted`
    // throws is refused after what the core finds wrong first (the id, the method, the
    // options, the progress token), with what its getter threw.
    let state = 0;
    let thrown;
    if (signal !== undefined) {
      try {
        state = isAborted(signal) ? 2 : 1;
      } catch (error) {
        state = 2;
        thrown = { error };
      }
    }
    const e = this.#encoder;
    e.id = id;
    e.methodCode = code;
    e.method = code === 0 ? method : undefined;
    e.signal = state;
    e.token = o?.token;
    e.task = o === undefined ? false : o.task;
    e.taskRef = o?.taskId;
    e.timeoutMs = o === undefined ? NaN : o.timeout;
    e.maxTotalMs = o === undefined ? NaN : o.maxTotalTimeout;
    e.flags = o === undefined ? 0 : o.flags;
    const output = this.#output;
    const v = output.after(calls.track(core, e));
    if (v === FAILED) throw output.refusal(id, o?.token);
    // The options' own error, once the core has found the id and the method right.
    if (v === OPTIONS) throw o?.error;
    // As `fetch()`: a request whose signal already aborted is not tracked; its reason is thrown.
    if (v === ABORTED) throw thrown === undefined ? reasonOrUndefined(signal) : thrown.error;
    this.#tracked(core, id, signal);
  }

  /**
   * After the core tracked request `id` with a signal (it checked the signal and watches
   * the request): the signal's aborting cancels the request, and the core's `settled`
   * record removes the listener. (An earlier request with the same id was settled by the
   * core before this one was tracked.)
   */
  #tracked(core, id, signal) {
    if (signal === undefined || signal === null) return;
    const ours = this.#objects.ours;
    const e = this.#encoder;
    const output = this.#output;
    // Only while this request is the one watched under `id`: a signal-like object that
    // cannot remove its listener (no `removeEventListener`) must not cancel a later
    // request with the same id, or call a closed session.
    const listener = () => {
      if (ours.get(id)?.listener !== listener) return;
      const reason = reasonOf(signal);
      const call = output.enter(id, reason, undefined, false);
      try {
        e.crossReason(reason);
        e.aborted = true;
        e.id = id;
        output.after(calls.cancel(core, e));
      } finally {
        output.leave(call);
      }
    };
    try {
      onAbort(signal, listener);
    } catch (error) {
      // Not listened to, so not tracked either (as if its response had come): the
      // caller's call throws, and the id is free again.
      this.shouldDropResponse(id);
      throw error;
    }
    ours.set(id, { signal, listener });
  }

  signal(id) {
    const core = this.#core;
    if (core === undefined) return undefined;
    const ours = this.#objects.ours;
    const entry = ours.get(id);
    if (entry?.controller !== undefined) return entry.controller.signal;
    if (!this.#router.watch(false, id)) return undefined;
    const controller = new AbortController();
    if (entry === undefined) ours.set(id, { controller });
    else entry.controller = controller;
    return controller.signal;
  }

  inboundSignal(id) {
    const core = this.#core;
    if (core === undefined) return undefined;
    const peers = this.#objects.peers;
    const known = peers.get(id);
    if (known !== undefined) return known.signal;
    if (!this.#router.watch(true, id)) return undefined;
    const controller = new AbortController();
    peers.set(id, controller);
    return controller.signal;
  }

  cancel(id, reason) {
    const core = this.#core;
    if (core === undefined) return undefined;
    // Without `send` (sans-IO), the cancel's message is returned, not sent.
    const output = this.#output;
    const call = output.enter(id, reason, undefined, !this.#hasSend);
    try {
      const e = this.#encoder;
      e.crossReason(reason);
      e.aborted = false;
      e.id = id;
      if (output.after(calls.cancel(core, e)) === FAILED) throw output.refusal(id);
      const captured = output.captured;
      return captured === undefined ? undefined : output.message(captured);
    } finally {
      output.leave(call);
    }
  }

  shouldDropResponse(response) {
    if (this.#core === undefined) return false;
    // A response's id is the peer's (a string longer than the core reads crosses as too
    // long); an id alone is the caller's own value.
    if (response === null || typeof response !== "object") return this.#router.response(response, response, EMPTY) === DROP;
    const id = response.id;
    return this.#router.response(id, peerValue(id), response) === DROP;
  }

  shouldDropProgress(token) {
    if (this.#core === undefined) return false;
    return this.#router.progress(token) === DROP;
  }

  shouldDropIncoming(message) {
    return this.filterIncoming(message) === undefined;
  }

  filterIncoming(message) {
    const core = this.#core;
    if (core === undefined) return message;
    if (Array.isArray(message)) return calls.acceptsBatches(core) ? filterBatch(message, (m) => this.filterIncoming(m)) : message;
    let verdict;
    try {
      verdict = this.#router.incoming(message ?? EMPTY);
    } catch {
      // A member whose getter throws is not JSON from a peer: not ours to judge.
      return message;
    }
    return verdict === DROP ? undefined : message;
  }

  beforeSend(message, options) {
    const core = this.#core;
    this.#sentRequest = false;
    if (core === undefined) return message;
    const signal = sendSignal(options);
    if (Array.isArray(message)) {
      if (!calls.acceptsBatches(core)) return message;
      const out = filterBatch(message, (m) => this.beforeSend(m, options));
      this.#sentRequest = false;
      return out;
    }
    const state = signal === undefined ? 0 : isAborted(signal) ? 2 : 1;
    // The SDK's own `notifications/cancelled`: the cancel the core makes of it (if any) is
    // sent in its place (`replacement`), not through `send`.
    const output = this.#output;
    const ownCancel = message !== null && typeof message === "object" && methodOf(wire, message.method) === wire.cancelledCode;
    let verdict;
    if (ownCancel) {
      const call = output.enter(undefined, undefined, undefined, true);
      try {
        verdict = this.#router.outgoing(message, state);
        const captured = output.captured;
        if (captured !== undefined) return replacement(output, message, captured);
      } finally {
        output.leave(call);
      }
    } else {
      verdict = this.#router.outgoing(message ?? EMPTY, state);
    }
    if (verdict === FAILED) throw output.refusal(message?.id, progressTokenOf(message));
    // Our response settled the peer's watched request: release its controller.
    if (verdict & SETTLED) this.#objects.takePeers(message.id);
    const v = verdict & 0x1f;
    if (v === PASS) {
      this.#sentRequest = (verdict & TRACKED) !== 0;
      if (verdict & WATCHED) this.#tracked(core, message.id, signal);
      return message;
    }
    // As `track()` and `fetch()`: a request whose signal already aborted is not sent.
    if (v === ABORTED) throw reasonOf(signal);
    return undefined;
  }

  /** Whether the last `beforeSend()` passed a request the session now tracks (for `guardTransport`). */
  [SENT_REQUEST]() {
    return this.#sentRequest;
  }

  setProtocolVersion(version) {
    const core = this.#core;
    if (core === undefined) return undefined;
    const e = this.#encoder;
    e.version = typeof version === "string" ? version : undefined;
    const revision = this.#output.after(calls.setProtocolVersion(core, e));
    if (revision === 0) throw this.#output.refusal(undefined, undefined, version);
    return wire.records.names.revision[revision - 1];
  }

  get revision() {
    const core = this.#core;
    // `0`: none yet (`undefined`).
    return core === undefined ? undefined : wire.records.names.revision[calls.revision(core) - 1];
  }

  relate(id, parentId) {
    const core = this.#live("relate");
    const e = this.#encoder;
    e.child = id;
    e.parent = parentId;
    return calls.relate(core, e) === 1;
  }

  isInFlight(id) {
    const core = this.#core;
    if (core === undefined) return false;
    const e = this.#encoder;
    e.id = id;
    return calls.isInFlight(core, e);
  }

  get inFlightCount() {
    const core = this.#core;
    return core === undefined ? 0 : calls.inFlightCount(core);
  }

  get tombstoneCount() {
    const core = this.#core;
    return core === undefined ? 0 : calls.tombstoneCount(core);
  }

  get closed() {
    return this.#core === undefined;
  }

  close() {
    const core = this.#core;
    if (core === undefined) return;
    this.#core = undefined;
    // Every request is forgotten, no cancel is sent: the wasm session is freed (its state
    // dropped: nothing is sent, no output is made), the timer goes, and so do the JS objects
    // the session held for its watched requests — each listener on a caller's signal is
    // removed, as a `settled` record would have it.
    const output = this.#output;
    output.detach();
    this.#sessions.unregister(output);
    calls.freeSession(core);
    this.#objects.releaseAll();
  }

  free() {
    this.close();
  }

  [Symbol.dispose]() {
    this.close();
  }

  /** @returns {{ wasm: any, h: number }} the wasm session, or throws `ERR_CLOSED` */
  #live(method) {
    const core = this.#core;
    if (core === undefined) {
      throw new UsageError(`CancellationSession.${method}(): the session is closed`, "ERR_CLOSED", undefined);
    }
    return core;
  }
}

/** The core's tables as the JS layer reads them (`tables`), from `constantsJson` parsed. */
function prepare(c) {
  const t = tables(c);
  t.cancelledCode = t.codes.get(c.names.cancelled);
  return t;
}

/** The signal's `reason`, or `undefined` when reading it throws. */
function reasonOrUndefined(signal) {
  try {
    return reasonOf(signal);
  } catch {
    return undefined;
  }
}
