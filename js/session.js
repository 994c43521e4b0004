// CancellationSession: mcp-cancel's public API over the wasm session (src/wasm/exports.rs).
//
// This file decides nothing. It reads the members of a message that the core names (by
// method code, from the core's own tables, or when the core answers "need fields"), makes
// one call into wasm per message with numbers only (a string's UTF-8 written into the
// session's scratch buffer, `strings`), and maps the number it gets back; and it does what
// the core's output says (`Output`: send a cancel, abort or release
// a request's JS objects, call `onTimeout` and `onEvent`, arm the one timer). Every rule —
// what a message is, which is the handshake, what a revision forbids, what to drop, what a
// cancel carries — is in the Rust core (src/core/message.rs).

import { InvalidArgumentError, UsageError } from "./errors.js";
import { callerTag, cancelledMessage, codeOf, isObject, member, methodOf, peerTag, readParams, readResponse, tables, tasksCancelMessage } from "./reader.js";
import { NO_SETTINGS, sessionSettings, trackOptions } from "./options.js";
import { readRecords } from "./records.js";
import {
  constantsJson,
  EXITS_CLOSE_STREAM,
  EXITS_SEND,
  FIELDS_META_PROGRESS_TOKEN,
  FIELDS_REASON,
  FIELDS_TASK as TASK,
  FIELDS_TASK_ID,
  MAX_PEER_STRING,
  MAX_WORDS_ID as CORE_MAX_WORDS_ID,
  NO_STRING,
  NUMBER_ID,
  REASONS_ERROR as REASON_ERROR,
  REASONS_NONE as REASON_NONE,
  REASONS_OTHER as REASON_OTHER,
  REASONS_TEXT as REASON_TEXT,
  SCRATCH_BYTES,
  TAGS_NUMBER as NUMBER,
  TAGS_STRING as STRING,
  VERDICTS_ABORTED as ABORTED,
  VERDICTS_BUSY as BUSY,
  VERDICTS_DROP as DROP,
  VERDICTS_FAILED as FAILED,
  VERDICTS_NEED_FIELDS as NEED,
  VERDICTS_OPTIONS as OPTIONS,
  VERDICTS_PASS as PASS,
  VERDICTS_SETTLED as SETTLED,
  VERDICTS_TRACKED as TRACKED,
  VERDICTS_WATCHED as WATCHED,
  WATCH_BIT,
} from "../pkg/web/mcp_cancel_tables.js";
import { isAborted, isListenable, offAbort, onAbort, reasonOf } from "./signals.js";

/**
 * @param {() => any} exports the exports of the build's wasm instance (once it is made: a
 *   session is made after it), its `memory` with them. The JS layer calls them directly,
 *   numbers in and out (no glue function between): a session is a handle (`newSession` → a
 *   number, `freeSession`) that every other export takes first (src/wasm/exports.rs); a
 *   `u32` result crosses as wasm's `i32` (an address is read `>>> 0`, a `bool` as `!== 0`).
 * @param {(options: any) => any} [adjustOptions] the entry's default options (DEBUG)
 *
 * The core's tables are pkg/web/mcp_cancel_tables.js (scripts/write-tables.mjs: not in the
 * session's `.wasm`, for its size), the same for every build: their numbers are imported above,
 * and the rest (`constantsJson`) is parsed by the first session of any class.
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

/** The core's tables, read once, by the first session of any class (every build's are the same). */
let wire;

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
  /**
   * The JS objects of our watched requests, by request id: the listener on the caller's
   * signal and the controller of the request's own signal. The core says when to abort or
   * release them (the hooks below); they live here, not in wasm memory.
   * @type {Map<string | number, { signal?: AbortSignal, listener?: () => void, controller?: AbortController }>}
   */
  #watched = new Map();
  /** The controllers of the peer's requests whose signal was asked for, by request id. */
  #inbound = new Map();
  /** Releases the JS objects of our watched request `id` (the `settled` hook). */
  #settled;
  /** What the core's output does with the JS objects (`Output` calls them; the fast paths two). */
  #hooks;
  /** See `[SENT_REQUEST]()`. */
  #sentRequest = false;
  /** Where a string id is written for the core (`putId`). */
  #scratch;
  /** The `send` option (the fast path of our cancels calls it, `cancelFast`). */
  #send;
  /** What does the core's output (`Output`). */
  #output;
  /** Frees the wasm sessions of this build that nothing can call any more (`createSessionClass`). */
  #sessions;

  constructor(options, env) {
    const wasm = (env.wasm ??= env.exports());
    // Frees the wasm sessions that nothing references any more (held: the handle). Made here,
    // not by a function of its own: one function fewer to compile at the first session.
    env.sessions ??=
      typeof FinalizationRegistry === "function" ? new FinalizationRegistry((h) => wasm.freeSession(h)) : { register() {}, unregister() {} };
    const { adjustOptions } = env;
    wire ??= prepare(JSON.parse(constantsJson));
    const watched = this.#watched;
    const inbound = this.#inbound;
    const w = wire;
    const hooks = {
      // The messages the session puts on the wire, built from the members the core chose.
      cancelled: (requestId, reason) => cancelledMessage(w, requestId, reason),
      tasksCancel: (id, taskId) => tasksCancelMessage(w, id, taskId),
      // Our watched request's JS objects (the entry of `watched`: the controller of its own
      // signal, the listener on the caller's signal), taken out of `watched` when the core
      // ends the request, before any callback of that output runs: a callback (`send`,
      // `onEvent`, `onTimeout`, a listener of the request's own signal) may track a new
      // request with the same id, whose entry the ended request's hooks must not touch.
      take: (id) => takeFrom(watched, id),
      requestCancelled: (entry, reason) => abortOwn(entry, reason),
      settled: (entry) => unlisten(entry),
      // A response settled our watched request `id` on a fast path (the core queued no
      // output, the verdict says `SETTLED`): release its objects.
      settledId: (id) => {
        const entry = hooks.take(id);
        if (entry !== undefined) unlisten(entry);
      },
      // The peer's watched request's controller, taken out of `inbound` when the request
      // is over, before any callback of that output runs (as `take`).
      takeInbound: (id) => takeFrom(inbound, id),
      peerCancelled: (controller, reason) => controller.abort(reason),
    };
    this.#settled = hooks.settledId;
    this.#hooks = hooks;
    const given = adjustOptions(options);
    const s = given === undefined || given === null ? NO_SETTINGS : sessionSettings(given, w);
    const exits = (s.send === undefined ? 0 : EXITS_SEND) | (s.closeStream === undefined ? 0 : EXITS_CLOSE_STREAM);
    const h = wasm.newSession(
      s.flags,
      s.tombstoneCapacity,
      s.inboundCapacity,
      s.maxReasonBytes,
      s.timeout,
      s.maxTotalTimeout,
      exits,
      s.onEvent !== undefined,
      Math.random() * 2 ** 52,
    );
    if (h === 0) throw new Error("mcp-cancel: the core could not make a session");
    const core = { wasm, h };
    const output = new Output(s, hooks, core, env.memory);
    // The session's memory in wasm goes when the session is closed, or when nothing can call
    // it any more: `output` is what the session and its timer hold.
    env.sessions.register(output, h, output);
    this.#output = output;
    this.#core = core;
    this.#sessions = env.sessions;
    this.#send = s.send;
    // The scratch buffer's address is asked for the first time a string needs it (`putId`,
    // `strings`): most sessions never do, and the first session of a process starts
    // sooner.
    const scratch = { core, memory: env.memory, at: 0, size: SCRATCH_BYTES, view: new Uint8Array(0) };
    this.#scratch = scratch;
    // The settings that are strings (their output, a protocol version's event, done now).
    if (s.genericReason !== undefined || s.timeoutReason !== undefined || s.protocolVersion !== undefined) {
      strings(scratch, s.genericReason, s.timeoutReason, s.protocolVersion);
      output.after(core.wasm.configure(core.h, S0, S1, S2));
    }
  }

  track(id, method, options) {
    const core = this.#live("track");
    const code = typeof method === "string" ? codeOf(wire, method) : -2;
    // The hot paths, without options: a known method with a number id, or with an ASCII
    // string id of up to `MAX_WORDS_ID` bytes as words; only numbers cross. Everything else
    // is `#trackOther`'s (this method stays small enough for V8 to inline into its caller,
    // with `packWords`: bench scenario 1b).
    if (options === undefined && code > 0) {
      const v = typeof id === "number" ? core.wasm.trackPlain(core.h, code, id, NUMBER_ID, 0, 0, 0) : typeof id === "string" && packWords(id) ? core.wasm.trackPlain(core.h, code, 0, id.length, W0, W1, W2) : 1;
      if (v === 0) return;
      // Tracked, and the call left work (an event, the timer to arm).
      if (v === BUSY) return this.#output.flush();
    }
    this.#trackOther(core, id, method, code, options);
  }

  /**
   * `track` for what its hot paths did not take: another method, an id or options of
   * another kind, or a request the core refused there (then `core.track` says why).
   */
  #trackOther(core, id, method, code, options) {
    const w = wire;
    const name = code === 0 ? method : undefined;
    // A known method without options, or with only a signal, crosses as numbers when its id
    // can; anything else, and a refusal, goes to `core.track` below, with the options as
    // js/options.js reads them: the core decides and says what is wrong.
    if (options === undefined) {
      // A string longer than `MAX_WORDS_ID` bytes or not ASCII (`track` took the others as
      // words): through the scratch buffer.
      if (code > 0 && typeof id === "string" && !packWords(id) && trackScratch(core, this.#scratch, id, code, this.#output)) return;
    } else {
      // An aborted signal goes to `core.track` too: it throws the signal's reason, after
      // what is wrong with the id or the method.
      const signal = onlySignal(options);
      if (signal !== undefined && !isAborted(signal) && trackFast(core, id, code, true, this.#output)) {
        this.#tracked(core, id, signal);
        return;
      }
    }
    const tag = callerTag(w, id);
    const o = trackOptions(options, w);
    // The caller's signal: none, live or aborted. A signal-like object whose `aborted`
    // throws is refused after what the core finds wrong first (the id, the method, the
    // options, the progress token), with what its getter threw.
    let signal = 0;
    let thrown;
    if (o.signal !== undefined) {
      try {
        signal = isAborted(o.signal) ? 2 : 1;
      } catch (error) {
        signal = 2;
        thrown = { error };
      }
    }
    strings(this.#scratch, tag === STRING ? id : undefined, name, o.tokenStr, o.taskId);
    const v = this.#output.after(core.wasm.track(core.h, tag, tag === NUMBER ? id : 0, S0, code, S1, signal, o.tokenTag, o.tokenNum, S2, o.task, S3, o.timeout, o.maxTotalTimeout, o.flags));
    if (v === FAILED) throw refusal(this.#scratch, id, o.token);
    // The options' own error, once the core has found the id and the method right.
    if (v === OPTIONS) throw o.error;
    // As `fetch()`: a request whose signal already aborted is not tracked; its reason is thrown.
    if (v === ABORTED) throw thrown === undefined ? reasonOrUndefined(o.signal) : thrown.error;
    this.#tracked(core, id, o.signal);
  }

  /**
   * After the core tracked request `id` with a signal (it checked the signal and watches
   * the request): the signal's aborting cancels the request, and the core's `Settled`
   * removes the listener. (An earlier request with the same id was settled by the core
   * before this one was tracked.)
   */
  #tracked(core, id, signal) {
    if (signal === undefined || signal === null) return;
    const watched = this.#watched;
    const send = this.#send;
    const hooks = this.#hooks;
    const scratch = this.#scratch;
    const output = this.#output;
    // Only while this request is the one watched under `id`: a signal-like object that
    // cannot remove its listener (no `removeEventListener`) must not cancel a later
    // request with the same id, or call a closed session.
    const listener = () => {
      if (watched.get(id)?.listener !== listener) return;
      const reason = reasonOf(signal);
      if (cancelFast(core, wire, send, hooks, output, id, reason)) return;
      // The id was a number or a string: the core tracked it.
      const str = typeof id === "string";
      const outer = output.enter(id, reason, undefined, false);
      try {
        const kind = crossReason(reason);
        strings(scratch, str ? id : undefined, RA, RB);
        output.after(core.wasm.cancel(core.h, true, str ? STRING : NUMBER, str ? 0 : id, S0, kind, S1, S2));
      } finally {
        output.leave(outer);
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
    watched.set(id, { signal, listener });
  }

  signal(id) {
    const core = this.#core;
    if (core === undefined) return undefined;
    const entry = this.#watched.get(id);
    if (entry?.controller !== undefined) return entry.controller.signal;
    if (!watch(core, wire, this.#scratch, false, id)) return undefined;
    const controller = new AbortController();
    if (entry === undefined) this.#watched.set(id, { controller });
    else entry.controller = controller;
    return controller.signal;
  }

  inboundSignal(id) {
    const core = this.#core;
    if (core === undefined) return undefined;
    const known = this.#inbound.get(id);
    if (known !== undefined) return known.signal;
    if (!watchInbound(core, wire, this.#scratch, id)) return undefined;
    const controller = new AbortController();
    this.#inbound.set(id, controller);
    return controller.signal;
  }

  cancel(id, reason) {
    const core = this.#core;
    if (core === undefined) return undefined;
    if (cancelFast(core, wire, this.#send, this.#hooks, this.#output, id, reason)) return undefined;
    const tag = callerTag(wire, id);
    // Without `send` (sans-IO), the cancel's message is returned, not sent.
    const output = this.#output;
    const outer = output.enter(id, reason, undefined, this.#send === undefined);
    try {
      const kind = crossReason(reason);
      strings(this.#scratch, tag === STRING ? id : undefined, RA, RB);
      if (output.after(core.wasm.cancel(core.h, false, tag, tag === NUMBER ? id : 0, S0, kind, S1, S2)) === FAILED) throw refusal(this.#scratch, id);
      const captured = output.captured;
      return captured === undefined ? undefined : output.message(captured);
    } finally {
      output.leave(outer);
    }
  }

  shouldDropResponse(response) {
    const core = this.#core;
    if (core === undefined) return false;
    const verdict =
      typeof response === "number"
        ? this.#output.after(core.wasm.responsePlain(core.h, response, NUMBER_ID, 0, 0, 0))
        : typeof response === "string"
          ? responseString(core, this.#scratch, this.#output, response)
          : NEED;
    if ((verdict & 0xff) !== NEED) return settledBy(verdict, response, this.#settled) === DROP;
    const isMessage = response !== null && typeof response === "object";
    return incomingResponse(core, wire, isMessage ? response.id : response, isMessage ? response : EMPTY, this.#settled, this.#scratch, this.#output) === DROP;
  }

  shouldDropProgress(token) {
    const core = this.#core;
    if (core === undefined) return false;
    const w = wire;
    const t = peerTag(w, token);
    strings(this.#scratch, t === STRING ? token : undefined);
    return this.#output.after(core.wasm.progress(core.h, t, t === NUMBER ? token : 0, S0)) === DROP;
  }

  shouldDropIncoming(message) {
    return this.filterIncoming(message) === undefined;
  }

  filterIncoming(message) {
    const core = this.#core;
    if (core === undefined) return message;
    if (Array.isArray(message)) return core.wasm.acceptsBatches(core.h) ? filterBatch(message, (m) => this.filterIncoming(m)) : message;
    let verdict;
    try {
      verdict = incoming(core, wire, message ?? EMPTY, this.#hooks, this.#scratch, this.#output);
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
      if (!core.wasm.acceptsBatches(core.h)) return message;
      const out = filterBatch(message, (m) => this.beforeSend(m, options));
      this.#sentRequest = false;
      return out;
    }
    const w = wire;
    // The SDK's own `notifications/cancelled`: the cancel the core makes of it (if any) is
    // sent in its place (`replacement`), not through `send`.
    const output = this.#output;
    const ownCancel = message !== null && typeof message === "object" && methodOf(w, message.method) === CANCELLED;
    let verdict;
    if (ownCancel) {
      const outer = output.enter(undefined, undefined, undefined, true);
      try {
        verdict = outgoing(core, w, message, signal === undefined ? 0 : isAborted(signal) ? 2 : 1, this.#scratch, output);
        const captured = output.captured;
        if (captured !== undefined) return replacement(w, message, captured);
      } finally {
        output.leave(outer);
      }
    } else {
      verdict = outgoing(core, w, message ?? EMPTY, signal === undefined ? 0 : isAborted(signal) ? 2 : 1, this.#scratch, output);
    }
    if (verdict === FAILED) throw refusal(this.#scratch, message?.id, progressTokenOf(message));
    // Our response settled the peer's watched request (a fast path): release its controller.
    if (verdict & SETTLED) this.#hooks.takeInbound(message.id);
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
    strings(this.#scratch, typeof version === "string" ? version : undefined);
    const revision = this.#output.after(core.wasm.setProtocolVersion(core.h, S0));
    if (revision === 0) throw refusal(this.#scratch, undefined, undefined, version);
    return wire.records.names.revision[revision - 1];
  }

  get revision() {
    const core = this.#core;
    // `0`: none yet (`undefined`).
    return core === undefined ? undefined : wire.records.names.revision[core.wasm.revision(core.h) - 1];
  }

  isInFlight(id) {
    const core = this.#core;
    if (core === undefined) return false;
    const tag = callerTag(wire, id);
    strings(this.#scratch, tag === STRING ? id : undefined);
    return core.wasm.isInFlight(core.h, tag, tag === NUMBER ? id : 0, S0) !== 0;
  }

  get inFlightCount() {
    const core = this.#core;
    return core === undefined ? 0 : core.wasm.inFlightCount(core.h);
  }

  get tombstoneCount() {
    const core = this.#core;
    return core === undefined ? 0 : core.wasm.tombstoneCount(core.h);
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
    core.wasm.freeSession(core.h);
    for (const entry of this.#watched.values()) unlisten(entry);
    this.#watched.clear();
    this.#inbound.clear();
  }

  free() {
    this.close();
  }

  [Symbol.dispose]() {
    this.close();
  }

  /** @returns {any} the wasm session, or throws `ERR_CLOSED` */
  #live(method) {
    const core = this.#core;
    if (core === undefined) {
      throw new UsageError(`CancellationSession.${method}(): the session is closed`, "ERR_CLOSED", undefined);
    }
    return core;
  }
}

/**
 * Does the core's output (`SessionCore.takeOutput()`: records, oldest first), in the order
 * the core made it (the wasm layer calls no JS), and keeps the session's one timer armed for
 * the core's next deadline. Every call into the core that left output or a new next deadline
 * says so (`BUSY` in what it returns): `after()` flushes then, right after the call, before its caller goes on.
 *
 * - Every queued record is taken before any callback runs: a callback may call the session,
 *   and that call's own flush sees only what it queued itself.
 * - The JS objects of the requests the records end are taken out of the session's maps
 *   (`take`, `takeInbound`) before any callback runs (see the hooks).
 * - The call in progress gives back its own values (`enter`): the caller's id and reason
 *   (`cancel()`, an abort) or the peer's `requestId` and `reason` (its cancel), which the
 *   records carry as copies out of wasm memory (an unpaired surrogate there is U+FFFD); and
 *   without `send` the first message is kept for the caller (`captured`), not sent.
 */
class Output {
  constructor(s, hooks, core, memory) {
    this.send = s.send;
    this.closeStream = s.closeStream;
    this.onTimeout = s.onTimeout;
    this.onEvent = s.onEvent;
    this.hooks = hooks;
    /** @type {{ wasm: any, h: number } | undefined} the session's core (`undefined` once the session closed, `detach`) */
    this.core = core;
    /** @type {() => WebAssembly.Memory} the memory the core's records are read from */
    this.memory = memory;
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
   * reason; `keep`: keep its first message instead of sending it); returns the outer call's,
   * for `leave`.
   */
  enter(id, reason, text, keep) {
    const outer = { call: this.call, captured: this.captured };
    this.call = { id, reason, text, keep, reasonText: typeof reason === "string" && !wellFormedCopy(reason).includes("\uFFFD") ? reason : undefined };
    this.captured = undefined;
    return outer;
  }

  leave(outer) {
    this.call = outer.call;
    this.captured = outer.captured;
  }

  flush() {
    const core = this.core;
    if (core === undefined) return;
    // The values of the call whose output this is; a call a callback makes gets none of them.
    const call = this.call;
    this.call = NO_CALL;
    try {
      for (;;) {
        const records = takenRecords(core, this.memory, core.wasm.takeOutput(core.h));
        if (records === undefined) break;
        const taken = this.take(records, call);
        for (const r of records) this.do(r, taken, call);
        // A callback closed the session.
        if (this.core === undefined) return;
      }
      this.arm(core);
    } finally {
      this.call = call;
    }
  }

  /** The JS objects of the requests `records` end, each once, taken before any callback runs. */
  take(records, call) {
    const hooks = this.hooks;
    let taken;
    for (const r of records) {
      let side;
      if (r.o === "cancelled" || r.o === "settled") side = "o";
      else if ((r.o === "peerCancelled" && r.watched) || r.o === "inboundSettled") side = "p";
      else continue;
      taken ??= new Map();
      const key = side + typeof r.requestId + r.requestId;
      if (taken.has(key)) continue;
      const id = ownValue(call.id, r.requestId);
      taken.set(key, side === "o" ? hooks.take(id) : hooks.takeInbound(id));
    }
    return taken;
  }

  do(r, taken, call) {
    const hooks = this.hooks;
    const objects = (side) => taken?.get(side + typeof r.requestId + r.requestId);
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
        return this.cancelled(r, objects("o"), call);
      case "settled": {
        const entry = objects("o");
        if (entry !== undefined) hooks.settled(entry);
        return;
      }
      case "peerCancelled": {
        const controller = r.watched ? objects("p") : undefined;
        // The peer's reason as is (what the MCP TypeScript SDK's handlers see).
        if (controller !== undefined) hooks.peerCancelled(controller, ownValue(call.text, r.reason));
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
    if (r.o === "tasksCancel") return this.hooks.tasksCancel(r.id, r.taskId);
    const reason = call.reasonText !== undefined && call.reasonText === r.reason ? call.reason : r.reason;
    return this.hooks.cancelled(ownValue(call.id, r.requestId), reason);
  }

  /** Our request was cancelled: abort its own signal; after a timeout, `onTimeout` too. */
  cancelled(r, entry, call) {
    const hooks = this.hooks;
    if (r.timeout === undefined) {
      // The caller's reason (`undefined`: the default `AbortError`, made only when the
      // request's signal was asked for).
      if (entry !== undefined) hooks.requestCancelled(entry, call.reason);
      return;
    }
    const error = timeoutException(r.message);
    if (entry !== undefined) hooks.requestCancelled(entry, error);
    if (this.onTimeout !== undefined) {
      try {
        this.onTimeout(ownValue(call.id, r.requestId), error);
      } catch (thrown) {
        this.sendFailed(r.requestId, thrown);
      }
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
    const delay = core.wasm.nextDeadline(core.h);
    if (delay === -2) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (delay < 0) return;
    const output = this;
    this.timer = setTimeout(() => {
      output.timer = undefined;
      const core = output.core;
      if (core !== undefined && (core.wasm.fireTimer(core.h) & BUSY) !== 0) output.flush();
    }, delay);
    // Node: a pending timeout must not keep the process alive by itself.
    this.timer?.unref?.();
  }
}

/** No call in progress: no values to give back. */
const NO_CALL = Object.freeze({ id: undefined, reason: undefined, text: undefined, keep: false, reasonText: undefined });

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

/** A `TimeoutError` `DOMException` with `message` (the core's text). */
function timeoutException(message) {
  if (typeof DOMException === "function") return new DOMException(message, "TimeoutError");
  const error = new Error(message);
  error.name = "TimeoutError";
  return error;
}

/**
 * What goes on the wire in place of the SDK's own `notifications/cancelled` `message`: the
 * cancel the core made of it — the same object when its reason is the one the reason policy
 * sends, else a copy with that reason (every other member kept, e.g. the 2026-07-28
 * `_meta`) — or the `tasks/cancel` of a task.
 */
function replacement(w, message, r) {
  if (r.o === "tasksCancel") return tasksCancelMessage(w, r.id, r.taskId);
  const params = message.params;
  const given = typeof params?.reason === "string" ? params.reason : undefined;
  if (given === r.reason) return message;
  const copy = Object.assign({}, message);
  const rewritten = Object.assign({}, params);
  if (r.reason === undefined) delete rewritten.reason;
  else rewritten.reason = r.reason;
  copy.params = rewritten;
  return copy;
}

const EMPTY = Object.freeze({});

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
 * or `undefined` when it holds none (the `take` and `takeInbound` hooks). A value is never
 * `undefined`; `id` itself is tried first, so the common case is a `get` and a `delete`
 * (no `has` before them: bench scenario 3 with string ids).
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

/**
 * The `signal` of `beforeSend()`'s options (the options the message is sent with, e.g. the
 * Vercel AI SDK's `send(message, { signal })`): `undefined` when there is none.
 */
function sendSignal(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object") {
    throw new InvalidArgumentError("beforeSend(): options must be an object, undefined or null", "ERR_INVALID_OPTION", options);
  }
  const signal = options.signal;
  if (signal === undefined || signal === null) return undefined;
  if (!isListenable(signal) || typeof isAborted(signal) !== "boolean") {
    throw new InvalidArgumentError("beforeSend(): option `signal` must be an AbortSignal", "ERR_INVALID_OPTION", signal);
  }
  return signal;
}

/**
 * The signal of `track()` options that are `{ signal }` alone, with an object that has an
 * `addEventListener` function (an `AbortSignal`): the shape the fast path takes; else
 * `undefined`. Anything else — other or inherited members, a signal of the wrong type — is
 * read and judged by the core.
 */
function onlySignal(options) {
  if (options === null || typeof options !== "object") return undefined;
  for (const key in options) if (key !== "signal") return undefined;
  const signal = options.signal;
  return isListenable(signal) ? signal : undefined;
}

/**
 * `watch(core, w, scratch, true, id)`: an id that crosses as numbers (`crossId`) through
 * the core's `watchPeerRequest`, nothing crossing as a string; any other through `watch`.
 */
function watchInbound(core, w, scratch, id) {
  if (crossId(id)) {
    const r = core.wasm.watchPeerRequest(core.h, X, LEN, W0, W1, W2);
    if (r !== 2) return r === 1;
  }
  return watch(core, w, scratch, true, id);
}

/**
 * Marks our request `id` (or with `inbound`, the peer's) as watched: `true`, or `false` when
 * it is not in flight. The id crosses tagged; the core refuses one that is not a request id
 * (`ERR_INVALID_REQUEST_ID`, thrown here).
 */
function watch(core, w, scratch, inbound, id) {
  const tag = callerTag(w, id);
  strings(scratch, tag === STRING ? id : undefined);
  const r = core.wasm.watchPlain(core.h, inbound, tag, tag === NUMBER ? id : 0, S0);
  if (r === FAILED) throw refusal(scratch, id);
  return r === 1;
}

/**
 * The records of the `n` bytes `core.wasm.takeOutput(core.h)` or `core.wasm.takeError(core.h)` took (`undefined`
 * for none), read where the core wrote them (`core.wasm.outputAt(core.h)` in `memory()`): all of them,
 * before anything calls the core again, which may write the next ones there.
 */
function takenRecords(core, memory, n) {
  return n === 0 ? undefined : readRecords(new Uint8Array(memory().buffer, core.wasm.outputAt(core.h) >>> 0, n), wire.records);
}

/**
 * The error of a call the core refused (it returned `verdicts.failed`): its
 * `SessionCore.takeError()` (a `"refused"` record), an `InvalidArgumentError` or a
 * `UsageError` with the core's code and text, about the caller's own value that the core
 * names (`of`: the request id `id`, the progress token `token`, the value `value`) or about
 * the core's request id. The record is read in place (`scratch`: the session's core and
 * its memory).
 */
function refusal(scratch, id, token, value) {
  const core = scratch.core;
  const e = takenRecords(core, scratch.memory, core.wasm.takeError(core.h))?.[0];
  if (e === undefined) return new Error("mcp-cancel: the core refused a call without saying why");
  const requestId = "requestId" in e ? e.requestId : e.of === "id" ? id : e.of === "token" ? token : e.of === "value" ? value : undefined;
  return new (e.name === "UsageError" ? UsageError : InvalidArgumentError)(e.message, e.code, requestId);
}

/** `params._meta.progressToken` of a message we send (for the error about it). */
function progressTokenOf(message) {
  return member(member(member(message, "params"), "_meta"), "progressToken");
}

/** The signal's `reason`, or `undefined` when reading it throws. */
function reasonOrUndefined(signal) {
  try {
    return reasonOf(signal);
  } catch {
    return undefined;
  }
}

/** The strings of the last reason `crossReason` crossed. */
let RA;
let RB;

/**
 * A cancel's `reason` as it crosses to the core (`cancel`): returns its kind
 * (`constantsJson().reasons`) and leaves its strings in `RA` and `RB` — a string as it is;
 * an object with a string `name` (an `Error`, a `DOMException`) as its `name` and its
 * `message` (when a string); anything else as its JSON, when `JSON.stringify` gives a string.
 * The core decides what each becomes on the wire (its reason policy).
 */
function crossReason(reason) {
  RA = undefined;
  RB = undefined;
  if (typeof reason === "string") {
    RA = reason;
    return REASON_TEXT;
  }
  if (reason === undefined) return REASON_NONE;
  const name = member(reason, "name");
  if (typeof name === "string") {
    const message = member(reason, "message");
    RA = name;
    RB = typeof message === "string" ? message : undefined;
    return REASON_ERROR;
  }
  try {
    const json = JSON.stringify(reason);
    if (typeof json === "string") RA = json;
  } catch {}
  return REASON_OTHER;
}


/**
 * A batch with each element replaced by `each(element)` (dropped when `undefined`): the same
 * array when nothing changed, `undefined` when nothing is left.
 */
function filterBatch(batch, each) {
  let changed = false;
  const out = [];
  for (const element of batch) {
    const kept = each(element);
    if (kept !== element) changed = true;
    if (kept !== undefined) out.push(kept);
  }
  if (!changed) return batch;
  return out.length === 0 ? undefined : out;
}

// The core's numbers this file compares with are its tables' constants (pkg/web/
// mcp_cancel_tables.js, imported above under these names): `NUMBER` and `STRING` the tags of
// an id, `DROP` … `OPTIONS` verdicts (`BUSY` is added to what a core call returns when it left
// work for `Output.flush()`), `REASON_*` the kinds of a cancel's reason as it crosses
// (`crossReason`), `NUMBER_ID` the `len` of an id that crosses as a number, `NO_STRING` the
// length of an absent string argument (`strings`), `WATCH_BIT` added to `trackPlain`'s method
// code when the request is watched.
/** The members the core reads of our requests (`outgoing[code]` of any method but a cancel). */
const REQUEST_READS = FIELDS_META_PROGRESS_TOKEN | TASK | FIELDS_TASK_ID;
/** The longest string id `packWords` packs: the core's `maxWordsId`, at most its 11 cases. */
const MAX_WORDS_ID = Math.min(CORE_MAX_WORDS_ID, 11);
/** The core's code of `notifications/cancelled` (set at the first session, from its tables). */
let CANCELLED = -1;
/** `{ code, message }` of a request that timed out (the core's `timeoutError`). */
let TIMEOUT_ERROR;

/**
 * The JSON-RPC error of a request that timed out, `{ code, message }` (−32001, as the MCP
 * SDKs' `RequestTimeout`), from the core's tables: known once a session was made.
 */
export const timeoutError = () => TIMEOUT_ERROR;

/** The core's tables as the JS layer reads them (`tables`), from `constantsJson` parsed. */
function prepare(c) {
  TIMEOUT_ERROR = c.timeoutError;
  const t = tables(c);
  CANCELLED = t.codes.get(c.names.cancelled);
  return t;
}

function incoming(core, w, message, hooks, scratch, output) {
  const method = message.method;
  const code = methodOf(w, method);
  if (code === -1) return incomingResponse(core, w, message.id, message, hooks.settledId, scratch, output);
  const id = message.id;
  // The fast paths (numbers only, no hook): a request with a known method that
  // needs no member but `params.task`, and a cancel with an object `params`, when the ids
  // cross as numbers. The core decides; `NEED` is "not taken" (the general path below).
  if (code > 0) {
    const need = w.incoming[code];
    if (id !== undefined) {
      if ((need & ~TASK) === 0 && crossId(id)) {
        const v = output.after(core.wasm.peerRequest(core.h, code, need !== 0 && isObject(message.params?.task), X, LEN, W0, W1, W2));
        if (v !== NEED) return v;
      }
    } else if (code === CANCELLED) {
      const params = message.params;
      const reason = params?.reason;
      if (isObject(params) && (reason === undefined || typeof reason === "string") && crossId(params.requestId)) {
        const v = output.after(core.wasm.peerCancel(core.h, reasonBytes(reason), X, LEN, W0, W1, W2));
        if (v !== NEED) {
          if (v & WATCHED) hooks.takeInbound(params.requestId)?.abort(reason);
          return v & ~WATCHED;
        }
      }
    }
  }
  const idTag = peerTag(w, id);
  const name = code === 0 ? (method.length > MAX_PEER_STRING ? method.slice(0, MAX_PEER_STRING) : method) : undefined;
  const need = code >= 0 ? w.incoming[code] : 0;
  if (need === 0) {
    strings(scratch, name, idTag === STRING ? id : undefined);
    return output.after(core.wasm.message(core.h, 0, code, S0, idTag, idTag === NUMBER ? id : 0, S1, 0, 0, 0, 0, NO_STRING, 0, NO_STRING, NO_STRING, NO_STRING, false));
  }
  const r = readParams(w, message, need, true);
  const call = () => {
    strings(scratch, name, idTag === STRING ? id : undefined, r.argStr, r.reason, r.taskId, r.status);
    return output.after(core.wasm.message(core.h, 0, code, S0, idTag, idTag === NUMBER ? id : 0, S1, need, r.paramsTag, r.argTag, r.argNum, S2, r.reasonTag, S3, S4, S5, r.task));
  };
  if ((need & FIELDS_REASON) === 0) return call();
  // A message whose reason the core reads (a cancel): its output gets the peer's strings
  // back as they are (`Output.enter`).
  const outer = output.enter(r.argStr, undefined, r.reason, false);
  try {
    return call();
  } finally {
    output.leave(outer);
  }
}

/** The words of the last string id `packWords` packed (bytes 0–3, 4–7, 8–10, little-endian). */
let W0 = 0;
/** The last id `crossId` crossed: its number (`LEN` is `NUMBER_ID`), or its words' length. */
let X = 0;
let LEN = 0;

/**
 * Crosses a request id as numbers for the core's fast paths: an integer-or-not number as
 * `X` (the core checks it), or an ASCII string of at most `MAX_WORDS_ID` bytes as words:
 * true when it did (anything else takes the general path).
 */
function crossId(id) {
  if (typeof id === "number") {
    X = id;
    LEN = NUMBER_ID;
    return true;
  }
  if (typeof id !== "string" || !packed(id)) return false;
  X = 0;
  LEN = id.length;
  return true;
}
let W1 = 0;
let W2 = 0;

/** The string id `W0`, `W1`, `W2` hold (a request's id is most often packed again for its response). */
let PACKED;

/**
 * `packWords(id)` unless `id` is the id packed last (`PACKED`, its words still in `W0`–`W2`):
 * for the callers that see an id again (a response after its request, the peer's cancel
 * and our response after its request).
 */
function packed(id) {
  return id === PACKED || packWords(id);
}

/**
 * Packs an ASCII string id of at most `MAX_WORDS_ID` (11) bytes into `W0`, `W1`, `W2` for the
 * core's `trackPlain`/`responsePlain` (nothing written to wasm memory), and remembers it as
 * `PACKED`: true when it did. A caller that may see the same id again calls `packed`;
 * `track` calls this (its id is most often new). Unrolled
 * by length (no loop: bench scenario 1b with string ids), the ASCII check once at the end over
 * every character, and kept under V8's size for inlining (460 bytes of bytecode, Node 20):
 * with `track` small enough too, V8 inlines both into the caller (scenario
 * 1b with string ids: 92 ns, against 106 ns when they are not inlined).
 */
function packWords(id) {
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
 * wasm module, which calls the `settled` hook.
 */
function unlisten(entry) {
  if (entry.listener === undefined) return;
  try {
    offAbort(entry.signal, entry.listener);
  } catch {}
}

/**
 * `1 +` an upper bound of the bytes of UTF-8 of a string `reason` (3 × its UTF-16 length),
 * `0` without one: how a cancel's reason crosses to the core's fast paths (`peerCancel`,
 * `cancelFast`).
 */
function reasonBytes(reason) {
  return reason === undefined ? 0 : Math.min(reason.length * 3, 0xfffffffe) + 1;
}

/**
 * Whether `reason` is a string that crosses into wasm unchanged: no unpaired surrogate (the
 * general path's UTF-8 conversion makes one U+FFFD on the wire). Without
 * `String.prototype.isWellFormed` (older browsers), no string is.
 */
function wellFormed(reason) {
  return typeof reason === "string" && reason.isWellFormed?.() === true;
}

/**
 * The fast path of a cancel of our request (bench scenario 2): an id that crosses as
 * numbers (`crossId`), a well-formed string reason or none, a session with `send`. The core decides
 * (`cancelFast`); when it took the cancel, this does what the general path's hooks would,
 * in their order: send the `notifications/cancelled` (what `send` throws is dropped, as the
 * general path drops it without `onEvent`, which the core's fast path requires), then — the
 * request was watched — abort its own signal and release its listener (its objects, taken
 * out of the session's map before `send` runs, as the general path takes them). True when
 * taken; false: nothing changed, take the general path.
 */
function cancelFast(core, w, send, hooks, output, id, reason) {
  if (send === undefined || !(reason === undefined || wellFormed(reason)) || !crossId(id)) return false;
  const v = output.after(core.wasm.cancelFast(core.h, reasonBytes(reason), X, LEN, W0, W1, W2));
  if (v === NEED) return false;
  // Taken before `send`, which may close the session (that forgets what the session holds)
  // or track a new request with this id: the request's own signal still aborts and its
  // listener still goes, and a new request's are not touched.
  const entry = v & WATCHED ? hooks.take(id) : undefined;
  try {
    // The core's id: a number id `-0` is `0` on the general path too.
    send(cancelledMessage(w, typeof id === "number" ? id + 0 : id, reason));
  } catch {}
  if (entry !== undefined) {
    abortOwn(entry, reason);
    unlisten(entry);
  }
  return true;
}

/**
 * `track` of a plain request with a known method (`code`; watched with `watch`: its caller's
 * signal is listened to) whose id crosses as numbers — a number, or an ASCII string of up to
 * `MAX_WORDS_ID` bytes as words: true when tracked; false when refused or not taken (then
 * `core.track` says why, or takes it).
 */
function trackFast(core, id, code, watch, output) {
  if (code <= 0) return false;
  const c = watch ? code | WATCH_BIT : code;
  if (typeof id === "number") return output.after(core.wasm.trackPlain(core.h, c, id, NUMBER_ID, 0, 0, 0)) === 0;
  return typeof id === "string" && packWords(id) && output.after(core.wasm.trackPlain(core.h, c, 0, id.length, W0, W1, W2)) === 0;
}

/**
 * `track(id, method)` of a plain request with a known method whose string id does not
 * cross as words, through the scratch buffer: true when tracked; false when refused or when
 * it does not fit (then `core.track` says why, or takes it).
 */
function trackScratch(core, scratch, id, code, output) {
  const n = putId(scratch, id);
  return n >= 0 && output.after(core.wasm.trackPlain(core.h, code, 0, n, 0, 0, 0)) === 0;
}

/**
 * Writes a string id's bytes into the session's scratch buffer in wasm memory, for the
 * core's numbers-only entry points: its length, or -1 when it is not ASCII or does not fit
 * (then it crosses as a string, as before). A view over memory that grew is detached
 * (`byteLength` 0) and made again.
 */
function putId(scratch, id) {
  let view = scratch.view;
  if (view.byteLength === 0) view = scratchView(scratch);
  const n = id.length;
  if (n > view.length) return -1;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c > 0x7f) return -1;
    view[i] = c;
  }
  return n;
}

/** The lengths in bytes of the strings the last `strings()` wrote, in its arguments' order (`NO_STRING`: absent). */
let S0 = 0;
let S1 = 0;
let S2 = 0;
let S3 = 0;
let S4 = 0;
let S5 = 0;
/** Where `strings()` writes: a view of wasm memory, and the offset of the next string in it. */
let INTO = new Uint8Array(0);
let AT = 0;
const ENCODER = new TextEncoder();

/**
 * Writes the strings of a call to one of the core's general entry points (`track`, `cancel`,
 * `message`, `response`, …), each a string or `undefined`, as UTF-8 one after the other
 * into the session's scratch buffer — or, when they may need more than its
 * `scratchBytes`, into a buffer the core makes for that call (`core.input`) — and leaves
 * each one's length in bytes in `S0`–`S5` (`NO_STRING` when absent) for the call, which
 * passes them in the same order: no string crosses as a string. An unpaired
 * surrogate is written as U+FFFD, as any string crossing into wasm memory is.
 */
function strings(scratch, a, b, c, d, e, f) {
  const bound = 3 * (size(a) + size(b) + size(c) + size(d) + size(e) + size(f));
  if (bound === 0) INTO = EMPTY_VIEW;
  else if (bound <= scratch.size) INTO = scratch.view.byteLength === 0 ? scratchView(scratch) : scratch.view;
  else {
    const at = scratch.core.wasm.input(scratch.core.h, bound) >>> 0;
    INTO = at === 0 ? EMPTY_VIEW : new Uint8Array(scratch.memory().buffer, at, bound);
  }
  AT = 0;
  S0 = put(a);
  S1 = put(b);
  S2 = put(c);
  S3 = put(d);
  S4 = put(e);
  S5 = put(f);
}

const EMPTY_VIEW = new Uint8Array(0);

function size(s) {
  return s === undefined ? 0 : s.length;
}

/** Writes `s` at `AT` in `INTO`: its length in bytes, or `NO_STRING` (absent, or nowhere to write it). */
function put(s) {
  if (s === undefined) return NO_STRING;
  if (s.length === 0) return 0;
  if (INTO.length === 0) return NO_STRING;
  const written = ENCODER.encodeInto(s, INTO.subarray(AT)).written;
  AT += written;
  return written;
}

/**
 * A view of the session's scratch buffer (`core.wasm.scratch(core.h)`: its address, asked
 * once) over the module's memory as it is now; empty when the core gives no address (a
 * session it does not have), so that nothing is written.
 */
function scratchView(scratch) {
  if (scratch.at === 0) scratch.at = scratch.core.wasm.scratch(scratch.core.h) >>> 0;
  return (scratch.view = new Uint8Array(scratch.memory().buffer, scratch.at, scratch.at === 0 ? 0 : scratch.size));
}

/** `core.response` for a string id: as words, or through the scratch buffer, when it can. */
function responseString(core, scratch, output, id) {
  if (packed(id)) return output.after(core.wasm.responsePlain(core.h, 0, id.length, W0, W1, W2));
  const n = putId(scratch, id);
  if (n >= 0) return output.after(core.wasm.responsePlain(core.h, 0, n, 0, 0, 0));
  strings(scratch, id);
  return output.after(core.wasm.response(core.h, STRING, 0, S0, 0, NO_STRING, NO_STRING, NO_STRING, NO_STRING, NO_STRING, false, NaN));
}

/**
 * A verdict of `core.response` without its `SETTLED` flag; with it, the watched request `id`
 * settled and its objects are released here (the core did not call the `settled` hook).
 */
function settledBy(verdict, id, settled) {
  if ((verdict & SETTLED) === 0) return verdict;
  settled(id);
  return verdict & ~SETTLED;
}

function incomingResponse(core, w, id, message, settled, scratch, output) {
  const idTag = peerTag(w, id);
  const idNum = idTag === NUMBER ? id : 0;
  const idStr = idTag === STRING ? id : undefined;
  let verdict =
    idTag === NUMBER
      ? output.after(core.wasm.responsePlain(core.h, id, NUMBER_ID, 0, 0, 0))
      : idTag === STRING
        ? responseString(core, scratch, output, id)
        : output.after(core.wasm.response(core.h, idTag, idNum, NO_STRING, 0, NO_STRING, NO_STRING, NO_STRING, NO_STRING, NO_STRING, false, NaN));
  if ((verdict & 0xff) !== NEED) return settledBy(verdict, id, settled);
  // The core needs members of the result or error: read them (only those) and ask again.
  const r = readResponse(w, message, verdict >>> 8);
  strings(scratch, idStr, r.taskTaskId, r.resultType, r.resultTaskId, r.status, r.protocolVersion);
  verdict = output.after(core.wasm.response(core.h, idTag, idNum, S0, r.need, S1, S2, S3, S4, S5, r.hasError, r.errorCode));
  return settledBy(verdict, id, settled) & 0xff;
}

/** `signal`: the one the message is sent with, `0` none, `1` live, `2` aborted. */
function outgoing(core, w, message, signal, scratch, output) {
  const method = message.method;
  const code = methodOf(w, method);
  const id = message.id;
  // Our response, when its id crosses as numbers: the fast path.
  if (code === -1 && crossId(id)) {
    const v = output.after(core.wasm.sentResponse(core.h, X, LEN, W0, W1, W2));
    if (v !== NEED) return v;
  }
  // Our request with a known method, without a signal or with a live one, when the members
  // the core reads of it are absent (no progress token, not a task, no task id): `track`'s
  // fast paths; a refusal takes the general path, which throws what is wrong.
  if (code > 0 && id !== undefined && signal !== 2 && (w.outgoing[code] & ~REQUEST_READS) === 0) {
    const params = message.params;
    if (params?._meta?.progressToken === undefined && !isObject(params?.task) && typeof params?.taskId !== "string") {
      const tracked = signal === 0 && typeof id === "number" ? output.after(core.wasm.trackPlain(core.h, code, id, NUMBER_ID, 0, 0, 0)) === 0 : trackFast(core, id, code, signal === 1, output);
      if (tracked) return PASS | TRACKED | (signal === 1 ? WATCHED : 0);
    }
  }
  const idTag = callerTag(w, id);
  const idNum = idTag === NUMBER ? id : 0;
  const idStr = idTag === STRING ? id : undefined;
  const name = code === 0 ? method : undefined;
  const need = code >= 0 ? w.outgoing[code] : 0;
  if (need === 0) {
    strings(scratch, name, idStr);
    return output.after(core.wasm.message(core.h, 1 + signal, code, S0, idTag, idNum, S1, 0, 0, 0, 0, NO_STRING, 0, NO_STRING, NO_STRING, NO_STRING, false));
  }
  const r = readParams(w, message, need, false);
  strings(scratch, name, idStr, r.argStr, r.reason, r.taskId);
  return output.after(core.wasm.message(core.h, 1 + signal, code, S0, idTag, idNum, S1, need, r.paramsTag, r.argTag, r.argNum, S2, r.reasonTag, S3, S4, NO_STRING, r.task));
}
