// The routing of a message to the session's `.wasm`: which export takes it (a response, a
// message from the peer, one we send, a request's watch), what of it is read for the core
// (the members its method's entry in the core's tables names, or those a verdict asks for),
// and the fields of the call set from them (js/encoder.js crosses them). Nothing here decides
// a rule; every verdict is the core's (src/core/message.rs).

import * as calls from "../pkg/web/mcp_cancel_calls.js";
import {
  FIELDS_REASON,
  FIELDS_TASK as TASK,
  MAX_PEER_STRING,
  TAGS_ABSENT as ABSENT,
  VERDICTS_FAILED as FAILED,
  VERDICTS_NEED_FIELDS as NEED,
  VERDICTS_SETTLED as SETTLED,
} from "../pkg/web/mcp_cancel_tables.js";
import { InvalidArgumentError } from "./errors.js";
import { peerValue } from "./encoder.js";
import { unlisten } from "./output.js";
import { isObject, member, methodOf, paramsRecord, readParams, readResponse, responseRecord } from "./reader.js";
import { isAborted, isListenable } from "./signals.js";

/** A message with no members (what a response given by its id alone is read as). */
export const EMPTY = Object.freeze({});

/** What crosses of `params` when the core reads none of it (`readParams`'s record, empty). */
const NO_PARAMS = Object.freeze({ paramsTag: ABSENT, reasonTag: ABSENT, reason: undefined, taskId: undefined, status: undefined, task: false });

/** Sets the call's fields of the members read of `params` (`r`), with `arg` as it crosses. */
function setParams(e, r, arg) {
  e.paramsTag = r.paramsTag;
  e.arg = arg;
  e.reasonTag = r.reasonTag;
  e.reason = r.reason;
  e.taskId = r.taskId;
  e.status = r.status;
  e.task = r.task;
}

/** Sets the call's fields of the members read of a response (`r`). */
function setResponse(e, r) {
  e.read = r.need;
  e.taskTaskId = r.taskTaskId;
  e.resultType = r.resultType;
  e.resultTaskId = r.resultTaskId;
  e.resultStatus = r.status;
  e.protocolVersion = r.protocolVersion;
  e.hasError = r.hasError;
  e.errorCode = r.errorCode;
}

/**
 * A session's routes into its core. Each sets the fields of its call only once everything it
 * reads of the message is read: a getter of the message may call the session, whose calls use
 * the same encoder.
 */
export class Router {
  /**
   * @param {{ wasm: any, h: number }} core the session's core
   * @param {import("./encoder.js").Encoder} encoder
   * @param {import("./output.js").Output} output
   * @param {import("./output.js").RequestObjects} objects
   * @param {any} w the core's tables
   */
  constructor(core, encoder, output, objects, w) {
    this.core = core;
    this.e = encoder;
    this.output = output;
    this.objects = objects;
    this.wire = w;
    this.params = paramsRecord();
    this.result = responseRecord();
  }

  /**
   * A response from the peer to our request `id` (`message` the whole response, `EMPTY` when
   * only the id was given; `crossed` the id as it crosses: the peer's, `peerValue(id)`, or
   * the caller's own, `id`): `DROP` or `PASS`. At first only the id crosses; when the core
   * needs members of its `result` or `error` (`NEED` with their bits), those are read and the
   * call is made again with them. A response that settled our watched request and left no
   * other output says so (`SETTLED`): its objects are released here.
   */
  response(id, crossed, message) {
    const e = this.e;
    const output = this.output;
    e.id = crossed;
    let v = output.after(calls.responseCommon(this.core, e));
    if ((v & 0xff) === NEED) {
      const r = readResponse(this.wire, message, v >>> 8, this.result);
      e.id = crossed;
      setResponse(e, r);
      v = output.after(calls.response(this.core, e));
    }
    if ((v & SETTLED) !== 0) {
      const entry = this.objects.takeOurs(id);
      if (entry !== undefined) unlisten(entry);
    }
    return v & 0xff;
  }

  /** A `notifications/progress` from the peer with this progress token: the verdict (`DROP`: late). */
  progress(token) {
    const e = this.e;
    e.token = peerValue(token);
    return this.output.after(calls.progress(this.core, e));
  }

  /** A message from the peer (not an array): the verdict. A response goes to `response`. */
  incoming(message) {
    const w = this.wire;
    const method = message.method;
    const code = methodOf(w, method);
    const id = message.id;
    if (code === -1) return this.response(id, peerValue(id), message);
    const name = code === 0 ? (method.length > MAX_PEER_STRING ? method.slice(0, MAX_PEER_STRING) : method) : undefined;
    const need = code >= 0 ? w.incoming[code] : 0;
    const e = this.e;
    const output = this.output;
    if ((need & ~TASK) === 0) {
      // At most whether `params.task` is an object (a peer's request): read here, alone.
      const task = need !== 0 && isObject(message.params?.task);
      e.id = peerValue(id);
      e.methodCode = code;
      e.method = name;
      e.read = need;
      setParams(e, NO_PARAMS, undefined);
      e.task = task;
      return output.after(calls.incoming(this.core, e));
    }
    const r = readParams(w, message, need, true, this.params);
    e.id = peerValue(id);
    e.methodCode = code;
    e.method = name;
    e.read = need;
    setParams(e, r, peerValue(r.arg));
    if ((need & FIELDS_REASON) === 0) return output.after(calls.incoming(this.core, e));
    // A message whose reason the core reads (a cancel): its output gets the peer's strings
    // back as they are (`Output.enter`).
    const call = output.enter(r.argStr, undefined, r.reason, false);
    try {
      return output.after(calls.incoming(this.core, e));
    } finally {
      output.leave(call);
    }
  }

  /** A message we send (not an array), with the signal it is sent with (`0` none, `1` live, `2` aborted): the verdict. */
  outgoing(message, signal) {
    const w = this.wire;
    const method = message.method;
    const code = methodOf(w, method);
    const id = message.id;
    const name = code === 0 ? method : undefined;
    const need = code >= 0 ? w.outgoing[code] : 0;
    const r = need === 0 ? NO_PARAMS : readParams(w, message, need, false, this.params);
    const e = this.e;
    e.signal = signal;
    e.id = id;
    e.methodCode = code;
    e.read = need;
    e.paramsTag = r.paramsTag;
    // A known method and nothing else read but the type of `params` (a plain request, our
    // response): the caller of that call, which reads only these fields.
    if (name === undefined && r.arg === undefined && r.reasonTag === ABSENT && r.taskId === undefined && !r.task) {
      return this.output.after(calls.outgoingCommon(this.core, e));
    }
    e.method = name;
    setParams(e, r, r.arg);
    return this.output.after(calls.outgoing(this.core, e));
  }

  /**
   * Marks our request `id` (or with `inbound`, the peer's) as watched: `true`, or `false` when
   * it is not in flight. The core refuses an id that is not a request id
   * (`ERR_INVALID_REQUEST_ID`, thrown here).
   */
  watch(inbound, id) {
    const e = this.e;
    e.inbound = inbound;
    e.id = id;
    const r = this.output.after(calls.watch(this.core, e));
    if (r === FAILED) throw this.output.refusal(id);
    return r === 1;
  }
}

/**
 * A batch with each element replaced by `each(element)` (dropped when `undefined`): the same
 * array when nothing changed, `undefined` when nothing is left.
 */
export function filterBatch(batch, each) {
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

/**
 * What goes on the wire in place of the SDK's own `notifications/cancelled` `message`: the
 * cancel the core made of it (`r`, its record) — the same object when its reason is the one
 * the reason policy sends, else a copy with that reason (every other member kept, e.g. the
 * 2026-07-28 `_meta`) — or the `tasks/cancel` of a task.
 */
export function replacement(output, message, r) {
  if (r.o === "tasksCancel") return output.message(r);
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

/**
 * The `signal` of `beforeSend()`'s options (the options the message is sent with, e.g. the
 * Vercel AI SDK's `send(message, { signal })`): `undefined` when there is none.
 */
export function sendSignal(options) {
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
 * `addEventListener` function (an `AbortSignal`): read without js/options.js (no options
 * record made: bench scenario 1); else `undefined`. Anything else — other or inherited
 * members, a signal of the wrong type — is read by `trackOptions` and judged by the core.
 */
export function onlySignal(options) {
  if (options === null || typeof options !== "object") return undefined;
  for (const key in options) if (key !== "signal") return undefined;
  const signal = options.signal;
  return isListenable(signal) ? signal : undefined;
}

/** `params._meta.progressToken` of a message we send (for the error about it). */
export function progressTokenOf(message) {
  return member(member(member(message, "params"), "_meta"), "progressToken");
}
