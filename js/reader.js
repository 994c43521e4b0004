// Reading a JSON-RPC message for the core: the members the core's tables name, as tags and
// scalars (the shared part of the session's and the relay's JS layers). Nothing here decides
// a rule: which members to read comes from the core (its tables, pkg/web/mcp_cancel_tables.js
// for the session and `RelayCore.constantsJson()` for the relay, or a verdict that asks for
// more).

/**
 * The core's tables (pkg/web/mcp_cancel_tables.js or `RelayCore.constantsJson()`, parsed), with a
 * map from method name to code.
 * @param {any} c
 */
export function tables(c) {
  // A loop, not `map` with an arrow function: one function fewer to compile at a process's
  // first session (start-up).
  const codes = new Map();
  for (let i = 0; i < c.methods.length; i++) codes.set(c.methods[i], i + 1);
  return { ...c, codes, last: { name: undefined, code: 0, name2: undefined, code2: 0 } };
}

/**
 * The core's code of the method named `name` (0: a name the core has no code for). The last
 * two names asked are remembered: most messages in a row have one of two methods (a client's
 * `tools/call` and its `notifications/cancelled` or `notifications/progress`; the same
 * method again), and comparing strings costs less than a `Map` lookup — bench scenario 3 (the
 * peer's request, then its cancel, names alternating) 7–12% less JS and wasm work per
 * request than with the last name alone, scenario 1b (one name) the same.
 * @param {any} w
 * @param {string} name
 */
export function codeOf(w, name) {
  const last = w.last;
  if (name === last.name) return last.code;
  if (name === last.name2) return last.code2;
  const code = w.codes.get(name) ?? 0;
  last.name2 = last.name;
  last.code2 = last.code;
  last.name = name;
  last.code = code;
  return code;
}

/**
 * The `notifications/cancelled` of a cancel the core made (one object literal; no `reason`
 * member when it has none), with the core's method name.
 * @param {any} w
 * @param {string | number} requestId
 * @param {string | undefined} reason
 */
export function cancelledMessage(w, requestId, reason) {
  return reason === undefined
    ? { jsonrpc: "2.0", method: w.names.cancelled, params: { requestId } }
    : { jsonrpc: "2.0", method: w.names.cancelled, params: { requestId, reason } };
}

/**
 * The `tasks/cancel` request `id` of a cancel the core made, for task `taskId`.
 * @param {any} w
 * @param {string | number} id
 * @param {string} taskId
 */
export function tasksCancelMessage(w, id, taskId) {
  return { jsonrpc: "2.0", id, method: w.names.tasksCancel, params: { taskId } };
}

/** The tag of a value the peer sent (a string longer than the core accepts is "oversized"). */
export function peerTag(w, v) {
  switch (typeof v) {
    case "number":
      return w.tags.number;
    case "string":
      return v.length > w.maxPeerString ? w.tags.oversized : w.tags.string;
    case "undefined":
      return w.tags.absent;
    case "boolean":
      return w.tags.boolean;
    default:
      return v === null ? w.tags.null : Array.isArray(v) ? w.tags.array : w.tags.object;
  }
}

/** The tag of a value the caller passed (its strings are not bounded). */
export function callerTag(w, v) {
  return typeof v === "string" ? w.tags.string : peerTag(w, v);
}

export function methodOf(w, method) {
  return typeof method === "string" ? codeOf(w, method) : method === undefined ? -1 : -2;
}

/**
 * A record `readParams` reads into, reused from one message to the next (no allocation per
 * message): each reader (a session, a relay) has its own.
 */
export function paramsRecord() {
  return { paramsTag: 0, arg: undefined, argTag: 0, argNum: 0, argStr: undefined, reasonTag: 0, reason: undefined, taskId: undefined, status: undefined, task: false, protocolVersion: undefined };
}

/**
 * The `params` members a message's `need` names, as the core's entry points take them, read
 * into `into` (a `paramsRecord()`), which it returns: valid until its next read. `arg` is the
 * member as it is (`params.requestId`, `params.progressToken` or `params._meta.progressToken`),
 * with its tag and its number or string beside it.
 */
export function readParams(w, message, need, bound, into) {
  const f = w.fields;
  const params = message.params;
  let arg;
  if (need & f.requestId) arg = params?.requestId;
  else if (need & f.progressToken) arg = params?.progressToken;
  else if (need & f.metaProgressToken) arg = params?._meta?.progressToken;
  const argTag = bound ? peerTag(w, arg) : callerTag(w, arg);
  let reasonTag = w.tags.absent;
  let reason;
  if (need & f.reason) {
    const r = params?.reason;
    reasonTag = peerTag(w, r);
    // A reason is capped by the core to at most `maxReasonBytes` bytes of UTF-8, which
    // that many UTF-16 code units always cover: never copy more than it can keep.
    if (typeof r === "string") {
      reasonTag = w.tags.string;
      reason = r.length > w.maxReasonBytes ? r.slice(0, w.maxReasonBytes) : r;
    }
  }
  into.arg = arg;
  into.paramsTag = need & f.params ? peerTag(w, params) : w.tags.absent;
  into.argTag = argTag;
  into.argNum = argTag === w.tags.number ? arg : 0;
  into.argStr = argTag === w.tags.string ? arg : undefined;
  into.reasonTag = reasonTag;
  into.reason = reason;
  into.taskId = need & f.taskId ? boundedString(w, params?.taskId, bound) : undefined;
  into.status = need & f.status ? boundedString(w, params?.status, bound) : undefined;
  into.task = need & f.task ? isObject(params?.task) : false;
  into.protocolVersion = need & f.metaProtocolVersion ? boundedString(w, params?._meta?.[w.names.metaProtocolVersion], bound) : undefined;
  return into;
}

export function boundedString(w, v, bound) {
  return typeof v === "string" && (!bound || v.length <= w.maxPeerString) ? v : undefined;
}

export function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `obj[name]` of any object (an array too), or `undefined` when `obj` is not one or its getter
 * throws: how the layers read a caller's values that the core judges (`track()`'s `params`,
 * a cancel's `reason`, the progress token of a message we send).
 * @param {unknown} obj
 * @param {string} name
 */
export function member(obj, name) {
  if (typeof obj !== "object" || obj === null) return undefined;
  try {
    return obj[name];
  } catch {
    return undefined;
  }
}


/** A record `readResponse` reads into, as `paramsRecord()`'s. */
export function responseRecord() {
  return { need: 0, taskTaskId: undefined, resultType: undefined, resultTaskId: undefined, status: undefined, protocolVersion: undefined, hasError: false, errorCode: NaN };
}

/**
 * The members of a response's `result` or `error` that `need` (the core's field bits) names,
 * as the session's `response` and the relay's `upstreamResponse` take them, read into `into`
 * (a `responseRecord()`), which it returns.
 */
export function readResponse(w, message, need, into) {
  const f = w.fields;
  const result = message.result;
  const error = message.error;
  const text = (v) => boundedString(w, v, true);
  const code = error?.code;
  into.need = need;
  into.taskTaskId = need & f.resultTaskId ? text(result?.task?.taskId) : undefined;
  into.resultType = need & f.resultTaskId ? text(result?.resultType) : undefined;
  into.resultTaskId = need & (f.resultTaskId | f.resultTaskStatus) ? text(result?.taskId) : undefined;
  into.status = need & f.resultTaskStatus ? text(result?.status) : undefined;
  into.protocolVersion = need & f.protocolVersion ? text(result?.protocolVersion) : undefined;
  into.hasError = error !== undefined;
  into.errorCode = typeof code === "number" ? code : NaN;
  return into;
}
