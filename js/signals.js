// Reading and listening to a caller's AbortSignal without V8's slow path.
//
// Node 20 gives every AbortSignal a hidden class of its own, so a member read on a new
// signal — `signal.aborted`, `signal.reason`, `signal.addEventListener` — misses V8's
// inline caches and is looked up the slow way: ~450 ns for `aborted` alone, about a tenth
// of tracking a request with a signal. For an
// `AbortSignal` the package calls the prototypes' own getters and methods, as Node's own
// internals do (members patched on the signal object itself are not consulted); anything
// else — a polyfill, a signal of another realm, a mock built on `AbortSignal.prototype`, a
// `Proxy` — is used through its own members, as before: the prototypes' members refuse an
// object that is not a real signal (they throw), and then its own members are used.

// A cache, made the first time a signal is looked at, not when this module loads: touching
// the global `AbortSignal` makes Node load its abort_controller internals (~0.2 ms of
// start-up), and a caller with a signal has loaded them already. `aborted` and `reason` the
// prototype's getters, `Target` this realm's `EventTarget`, `Signal` its `AbortSignal` where
// the prototypes' members may be used (else `undefined`).
/** @type {{ aborted: Function | undefined, reason: Function | undefined, Target: any, Signal: any } | undefined} */
let cachedMembers;

function members() {
  if (cachedMembers !== undefined) return cachedMembers;
  const aborted = getter("aborted");
  const reason = getter("reason");
  const Target = typeof EventTarget === "function" ? EventTarget : undefined;
  // The fast path only where this realm's `AbortSignal` is an `EventTarget` (not, e.g., a
  // polyfill installed before the first signal is looked at that does not inherit from it).
  const Signal =
    typeof AbortSignal === "function" && aborted !== undefined && reason !== undefined && Target !== undefined && AbortSignal.prototype instanceof Target
      ? AbortSignal
      : undefined;
  return (cachedMembers = { aborted, reason, Target, Signal });
}

function getter(name) {
  return typeof AbortSignal === "function" ? Object.getOwnPropertyDescriptor(AbortSignal.prototype, name)?.get : undefined;
}

/** Whether `signal` claims to be an `AbortSignal` of this realm (then its prototypes' members are tried first). */
const isAbortSignal = (signal) => {
  const Signal = members().Signal;
  return Signal !== undefined && signal instanceof Signal;
};

/**
 * Whether `signal` (an `AbortSignal`, or any object with `addEventListener`) can be
 * listened to: the check of `track()`'s fast path.
 * @param {unknown} signal
 * @returns {boolean}
 */
export function isListenable(signal) {
  return isAbortSignal(signal) || (signal !== null && typeof signal === "object" && typeof signal.addEventListener === "function");
}

/** What `viaPrototypes` returns when `signal` is not a real `AbortSignal` of this realm. */
const REFUSED = Symbol("refused");

/**
 * `member.call(signal, …args)` — `member` one of the prototypes' getters or methods — for
 * an `AbortSignal` of this realm; `REFUSED` for anything else, and when the member refuses
 * `signal` by throwing (a mock on `AbortSignal.prototype`, a `Proxy` in browsers): then the
 * caller uses the object's own member.
 */
function viaPrototypes(member, signal, ...args) {
  if (!isAbortSignal(signal)) return REFUSED;
  try {
    return member.call(signal, ...args);
  } catch {
    return REFUSED;
  }
}

/**
 * `signal.aborted`.
 * @param {any} signal
 * @returns {boolean}
 */
export function isAborted(signal) {
  const value = viaPrototypes(members().aborted, signal);
  return value === REFUSED ? signal.aborted : value;
}

/**
 * `signal.reason`.
 * @param {any} signal
 * @returns {unknown}
 */
export function reasonOf(signal) {
  const value = viaPrototypes(members().reason, signal);
  return value === REFUSED ? signal.reason : value;
}

/**
 * `signal.addEventListener("abort", listener, options)`.
 * @param {any} signal
 * @param {() => void} listener
 * @param {AddEventListenerOptions} [options]
 */
export function onAbort(signal, listener, options) {
  if (viaPrototypes(members().Target?.prototype.addEventListener, signal, "abort", listener, options) === REFUSED) {
    signal.addEventListener("abort", listener, options);
  }
}

/**
 * `signal.removeEventListener("abort", listener)`, when the signal has that method (a
 * signal-like object without it keeps the listener; the caller makes it do nothing).
 * @param {any} signal
 * @param {() => void} listener
 */
export function offAbort(signal, listener) {
  if (viaPrototypes(members().Target?.prototype.removeEventListener, signal, "abort", listener) === REFUSED) {
    signal.removeEventListener?.("abort", listener);
  }
}
