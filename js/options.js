// The options of `new CancellationSession(options)`, `track(id, method, options)` and
// `createRelay(options)`, read strictly: a member of the wrong type, or one the API does not
// have, is an `InvalidArgumentError` (`ERR_INVALID_OPTION`) that names it — a typo must not
// become a timeout that never fires. Timeouts use the MCP TypeScript SDK's names and meanings
// (`timeout`, `maxTotalTimeout`, `resetTimeoutOnProgress`, in ms).
//
// Read here, in JS, and handed to the core as scalars, for start-up and size: reading them
// from wasm would take a crossing per member and ~6 KB of the `.wasm`, compiled at a
// process's first session. This file only checks the types the API documents; what a setting means
// (its default, what a timeout does) is the core's: an absent number crosses as `NaN`, an
// absent string or function as `undefined`, and the core puts its default in its place.

import { InvalidArgumentError } from "./errors.js";
import { callerTag, isObject, member } from "./reader.js";

/** The settings of a session, in `CancellationSession`'s options and `createRelay`'s (its upstream session's). */
const SETTINGS_KEYS = [
  "onEvent",
  "protocolVersion",
  "transport",
  "tombstoneCapacity",
  "inboundCapacity",
  "maxReasonBytes",
  "exposeErrorReasons",
  "genericReason",
  "timeoutReason",
  "timeout",
  "maxTotalTimeout",
  "resetTimeoutOnProgress",
];

/** `CancellationSession`'s own options. */
const SESSION_KEYS = ["send", "closeStream", "onTimeout", "onCascade", "cascadeReason", "role"];

/** `createRelay()`'s own options (read by js/relay.js). */
const RELAY_KEYS = ["upstream", "maxInFlightPerClient", "onUpstreamClose", "onError"];

const TRACK_KEYS = ["signal", "params", "timeout", "maxTotalTimeout", "resetTimeoutOnProgress"];

/** Names of 0.1 that changed, with what to use instead. */
const RENAMED = new Map([
  ["timeoutMs", "timeout"],
  ["maxTotalTimeoutMs", "maxTotalTimeout"],
  ["logger", "onEvent"],
]);

/**
 * @typedef {object} Settings a session's settings as they cross to the core
 * @property {number} flags bits of the core's `optionFlags` (`server`, `streamableHttp`,
 *   `exposeGiven`, `expose`, `timeoutGiven`, `resetOnProgress`)
 * @property {number} tombstoneCapacity a non-negative integer, or `NaN` (the core's default)
 * @property {number} inboundCapacity a non-negative integer, or `NaN`
 * @property {number} maxReasonBytes an integer from 0 to `maxReasonBytes` (the core's largest), or `NaN`
 * @property {number} timeout ms, finite and non-negative, or `NaN` (none)
 * @property {number} maxTotalTimeout ms, or `NaN`
 * @property {string | undefined} genericReason
 * @property {string | undefined} timeoutReason
 * @property {string | undefined} protocolVersion
 * @property {Function | undefined} send
 * @property {Function | undefined} closeStream
 * @property {Function | undefined} onTimeout
 * @property {Function | undefined} onCascade
 * @property {string | undefined} cascadeReason
 * @property {Function | undefined} onEvent
 */

/**
 * The options given to `new CancellationSession(options)`, neither `undefined` nor `null` (a
 * session without options crosses with `NO_SETTINGS` and never calls this file: js/session.js).
 * @param {unknown} options
 * @param {any} w the core's tables (`constantsJson()`: `optionFlags`, `maxReasonBytes`)
 * @returns {Settings}
 * @throws {InvalidArgumentError} `ERR_INVALID_OPTION` naming the member, or when `options` is
 *   not an object
 */
export function sessionSettings(options, w) {
  checkKeys(options, [SESSION_KEYS, SETTINGS_KEYS], "CancellationSession");
  return settings(options, "CancellationSession", w);
}

/**
 * Every setting absent, for the core to put its defaults in their place: what a session given
 * no options crosses with as it is (frozen; a first session without options runs none of this
 * file's functions, each one V8 compiles at its first call, a start-up cost), and what
 * `settings` fills from the options given, in a copy.
 * @type {Readonly<Settings>}
 */
export const NO_SETTINGS = Object.freeze({
  flags: 0,
  tombstoneCapacity: NaN,
  inboundCapacity: NaN,
  maxReasonBytes: NaN,
  timeout: NaN,
  maxTotalTimeout: NaN,
  genericReason: undefined,
  timeoutReason: undefined,
  send: undefined,
  closeStream: undefined,
  onTimeout: undefined,
  onCascade: undefined,
  cascadeReason: undefined,
  onEvent: undefined,
  protocolVersion: undefined,
});

/**
 * The upstream session's settings in the options of `createRelay(options)`; every name is
 * checked, the relay's own options are read by js/relay.js.
 * @param {unknown} options
 * @param {any} w as `sessionSettings`'s
 * @returns {Settings}
 * @throws {InvalidArgumentError} `ERR_INVALID_OPTION` naming the member
 */
export function relaySettings(options, w) {
  checkKeys(options, [RELAY_KEYS, SETTINGS_KEYS], "createRelay");
  return settings(options, "createRelay", w);
}

/**
 * @typedef {object} TrackOptions the options of `track()` as they cross to the core
 * @property {any} signal the caller's `AbortSignal` (an object with `addEventListener`), or `undefined`
 * @property {unknown} token `params._meta.progressToken` as given
 * @property {number} tokenTag its tag (`constantsJson().tags`), with `tokenNum` or `tokenStr`
 * @property {number} tokenNum
 * @property {string | undefined} tokenStr
 * @property {boolean} task whether `params.task` is an object
 * @property {string | undefined} taskId `params.taskId` when it is a string
 * @property {number} timeout ms, or `NaN`
 * @property {number} maxTotalTimeout ms, or `NaN`
 * @property {number} flags `optionFlags.timeoutGiven`, `optionFlags.resetOnProgress`, and
 *   `optionFlags.invalid` with `error`
 * @property {InvalidArgumentError | undefined} error what is wrong with them: thrown once the
 *   core has checked the id and the method (the order of `track()`'s errors)
 */

/**
 * The options of `track(id, method, options)`. Does not throw: what is wrong is `error`.
 * @param {unknown} options
 * @param {any} w as `sessionSettings`'s
 * @returns {TrackOptions}
 */
export function trackOptions(options, w) {
  const read = {
    signal: undefined,
    token: undefined,
    tokenTag: w.tags.absent,
    tokenNum: 0,
    tokenStr: undefined,
    task: false,
    taskId: undefined,
    timeout: NaN,
    maxTotalTimeout: NaN,
    flags: 0,
    error: undefined,
  };
  if (options === undefined) return read;
  try {
    checkKeys(options, [TRACK_KEYS], "track()");
    const signal = get(options, "signal");
    if (signal !== undefined && signal !== null) {
      if (!isObject(signal) || get(signal, "addEventListener") === undefined) throw wrong("track()", "signal", "an AbortSignal", options);
      read.signal = signal;
    }
    timeouts(read, options, "track()", w.optionFlags);
    // What the core reads of `params`: `_meta.progressToken` (tagged: the core says what is
    // wrong with it), whether `task` is an object, and `taskId` when it is a string.
    const params = get(options, "params");
    const token = member(member(params, "_meta"), "progressToken");
    const tag = callerTag(w, token);
    read.token = token;
    read.tokenTag = tag;
    read.tokenNum = tag === w.tags.number ? token : 0;
    read.tokenStr = tag === w.tags.string ? token : undefined;
    read.task = isObject(member(params, "task"));
    const taskId = member(params, "taskId");
    read.taskId = typeof taskId === "string" ? taskId : undefined;
  } catch (error) {
    read.error = error;
    read.flags |= w.optionFlags.invalid;
  }
  return read;
}

/** The session settings in `options` (whose names were checked), for `what`'s messages. */
function settings(options, what, w) {
  const f = w.optionFlags;
  let flags = 0;
  const transport = string(options, "transport", what);
  if (transport === "streamable-http") flags |= f.streamableHttp;
  else if (transport !== undefined && transport !== "stdio") throw wrong(what, "transport", '"stdio" or "streamable-http"', options);
  const role = string(options, "role", what);
  if (role === "server") flags |= f.server;
  else if (role !== undefined && role !== "client") throw wrong(what, "role", '"client" or "server"', options);
  const tombstoneCapacity = count(options, "tombstoneCapacity", 2 ** 32 - 1, what);
  const inboundCapacity = count(options, "inboundCapacity", 2 ** 32 - 1, what);
  const reasonBytes = count(options, "maxReasonBytes", w.maxReasonBytes, what);
  const expose = boolean(options, "exposeErrorReasons", what);
  if (expose !== undefined) flags |= f.exposeGiven | (expose ? f.expose : 0);
  const genericReason = string(options, "genericReason", what);
  const timeoutReason = string(options, "timeoutReason", what);
  const s = { ...NO_SETTINGS };
  timeouts(s, options, what, f);
  s.flags |= flags;
  s.tombstoneCapacity = tombstoneCapacity;
  s.inboundCapacity = inboundCapacity;
  s.maxReasonBytes = reasonBytes;
  s.genericReason = genericReason;
  s.timeoutReason = timeoutReason;
  s.send = fn(options, "send", what);
  s.closeStream = fn(options, "closeStream", what);
  s.onTimeout = fn(options, "onTimeout", what);
  s.onCascade = fn(options, "onCascade", what);
  s.cascadeReason = string(options, "cascadeReason", what);
  s.onEvent = fn(options, "onEvent", what);
  s.protocolVersion = string(options, "protocolVersion", what);
  return s;
}

/** Refuses an options value that is not an object, and any member not in `known`. */
function checkKeys(options, known, what) {
  if (options === undefined || options === null) return;
  if (!isObject(options)) {
    throw new InvalidArgumentError(`${what}: options must be an object, undefined or null`, "ERR_INVALID_OPTION", options);
  }
  for (const name of Object.keys(options)) {
    if (known.some((names) => names.includes(name))) continue;
    const renamed = RENAMED.get(name);
    throw new InvalidArgumentError(
      `${what}: unknown option \`${name}\`${renamed === undefined ? "" : ` (renamed \`${renamed}\` in 1.0)`}; known options: ${known.flat().join(", ")}`,
      "ERR_INVALID_OPTION",
      name,
    );
  }
}

/** `timeout`, `maxTotalTimeout` and `resetTimeoutOnProgress` into `read` (`f.timeoutGiven` when one is given). */
function timeouts(read, options, what, f) {
  read.timeout = millis(options, "timeout", what);
  read.maxTotalTimeout = millis(options, "maxTotalTimeout", what);
  const reset = boolean(options, "resetTimeoutOnProgress", what);
  if (!Number.isNaN(read.timeout) || !Number.isNaN(read.maxTotalTimeout) || reset !== undefined) read.flags |= f.timeoutGiven;
  if (reset === true) read.flags |= f.resetOnProgress;
}

/** A duration in ms: any finite non-negative number (the core rounds a fraction up); `NaN` when absent. */
function millis(options, name, what) {
  const v = get(options, name);
  if (v === undefined) return NaN;
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return v;
  throw wrong(what, name, "a finite non-negative number of milliseconds", options);
}

/** A non-negative integer no greater than `max` (`2 ** 32 - 1`: any); `NaN` when absent. */
function count(options, name, max, what) {
  const v = get(options, name);
  if (v === undefined) return NaN;
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= max) return v;
  throw wrong(what, name, max === 2 ** 32 - 1 ? "a non-negative integer" : `an integer from 0 to ${max}`, options);
}

function boolean(options, name, what) {
  const v = get(options, name);
  if (v === undefined || typeof v === "boolean") return v;
  throw wrong(what, name, "a boolean", options);
}

function string(options, name, what) {
  const v = get(options, name);
  if (v === undefined || typeof v === "string") return v;
  throw wrong(what, name, "a string", options);
}

function fn(options, name, what) {
  const v = get(options, name);
  if (v === undefined || typeof v === "function") return v;
  throw wrong(what, name, "a function", options);
}

function wrong(what, name, expected, options) {
  return new InvalidArgumentError(`${what}: option \`${name}\` must be ${expected}`, "ERR_INVALID_OPTION", get(options, name));
}

/** `obj[name]`, or `undefined` when `obj` is not an object or the getter throws. */
function get(obj, name) {
  if (!isObject(obj)) return undefined;
  try {
    return obj[name];
  } catch {
    return undefined;
  }
}
