// CancellationSession: mcp-cancel's public API over the wasm session (src/wasm/exports.rs).
//
// This class is what `import "mcp-cancel"` compiles at start-up, and all it does itself is a
// session's first steps and its two hottest paths: making the wasm session of a session
// without options, `track(id, method)` of a plain request and `shouldDropResponse(id)` of a
// number id — each one call into wasm with numbers only. Everything else (options, signals,
// cancels, messages, the core's output) is js/session.js's `Session`, made the first time
// one of those paths runs: the Node build loads it from its own file then (issue #24,
// start-up: a process that has not used it yet has not compiled it).
//
// This file decides nothing either: the core's verdicts say what happened, the method codes
// are the core's own table (pkg/web/mcp_cancel_tables.js, `startTables`).

import { startTables } from "../pkg/web/mcp_cancel_tables.js";
import { UsageError } from "./errors.js";
import { NO_SETTINGS, openSession } from "./options.js";
import { codeOf, tables } from "./reader.js";
import { packWords, packed, W0, W1, W2 } from "./words.js";

/**
 * The public class of a build.
 * @param {() => any} exports the exports of the build's wasm instance (once it is made: a
 *   session is made after it), its `memory` with them. The hot paths call them directly,
 *   numbers in and out: a session is a handle (`newSession` → a number, `freeSession`) that
 *   every other export takes first (src/wasm/exports.rs).
 * @param {() => { Session: typeof import("./session.js").Session }} full the rest of the
 *   session (js/full.js): loaded on first use in Node, imported with this file elsewhere
 * @param {(options: any) => any} [adjustOptions] the entry's default options (DEBUG)
 */
export function createSessionClass(exports, full, adjustOptions = (o) => o) {
  const env = { exports, wasm: undefined, memory: () => env.wasm.memory, full, adjustOptions, sessions: undefined };
  return class CancellationSession extends Front {
    // Its name, whatever a minifier calls the class (the Node build is minified).
    static name = "CancellationSession";

    /** @param {unknown} [options] see the README and the typings */
    constructor(options) {
      super(options, env);
    }
  };
}

/** The part of the core's tables the front reads (`startTables`), read once by the first session. */
let start;
/** Verdicts of the core (`constantsJson().verdicts`), and its `idLen` of a number id. */
let BUSY = 0;
let NEED = -1;
let SETTLED = 0;
let DROP = -1;
let NUMBER_ID = -1;

function prepareStart() {
  const c = startTables;
  BUSY = c.verdicts.busy;
  NEED = c.verdicts.needFields;
  SETTLED = c.verdicts.settled;
  DROP = c.verdicts.drop;
  NUMBER_ID = c.numberId;
  return tables(c);
}

/**
 * `sentRequest(session)`: whether the last `beforeSend()` passed a request the session now
 * tracks (the core said so). Not part of the public API: `guardTransport` uses it.
 * @type {(session: Front) => boolean}
 */
export let sentRequest;

/**
 * The public API's methods, defined once at the top of this module (a class made in the
 * factory was parsed again when the first session of a process was made — issue #24,
 * start-up); each class `createSessionClass` makes extends it with its build's wasm instance.
 */
class Front {
  /**
   * The wasm session: `wasm` the instance's exports, `h` its handle, passed first to each
   * (`undefined` once closed). The `Session` behind it, once made, holds the same object.
   * @type {{ wasm: any, h: number } | undefined}
   */
  #core;
  /**
   * The rest of the session (js/session.js), made the first time a path other than the
   * hot ones runs; `undefined` before.
   * @type {import("./session.js").Session | undefined}
   */
  #full;
  /** The build's (`createSessionClass`). */
  #env;

  static {
    sentRequest = (session) => session.#full !== undefined && session.#full.sentRequest();
  }

  constructor(options, env) {
    const wasm = (env.wasm ??= env.exports());
    // Frees the wasm sessions that nothing references any more (held: the handle). Made here,
    // not by a function of its own: one function fewer to compile at the first session.
    env.sessions ??=
      typeof FinalizationRegistry === "function" ? new FinalizationRegistry((h) => wasm.freeSession(h)) : { register() {}, unregister() {} };
    start ??= prepareStart();
    this.#env = env;
    const given = env.adjustOptions(options);
    if (given === undefined || given === null) {
      const core = { wasm, h: openSession(wasm, NO_SETTINGS, start.exits) };
      // Freed when this object goes; once the `Session` behind it is made, when that one's
      // output goes (`#adopt`).
      env.sessions.register(this, core.h, this);
      this.#core = core;
    } else {
      const full = new (env.full().Session)(given, env);
      this.#full = full;
      this.#core = full.core;
    }
  }

  /** The `Session` behind this one, made now if it is not yet. */
  #rest() {
    return this.#full ?? this.#adopt();
  }

  #adopt() {
    const core = this.#core;
    const env = this.#env;
    // Its output holds the wasm session from now on (closed: none).
    if (core !== undefined) env.sessions.unregister(this);
    return (this.#full = new (env.full().Session)(undefined, env, core ?? null));
  }

  track(id, method, options) {
    const core = this.#core;
    if (core === undefined) throw new UsageError("CancellationSession.track(): the session is closed", "ERR_CLOSED", undefined);
    const code = typeof method === "string" ? codeOf(start, method) : -2;
    // The hot paths, without options: a known method with a number id, or with an ASCII
    // string id of up to `maxWordsId` bytes as words; only numbers cross. Everything else
    // is the `Session`'s (this method stays small enough for V8 to inline into its caller,
    // with `packWords`: issue #24, 1b).
    if (options === undefined && code > 0) {
      const v = typeof id === "number" ? core.wasm.trackPlain(core.h, code, id, NUMBER_ID, 0, 0, 0) : typeof id === "string" && packWords(id) ? core.wasm.trackPlain(core.h, code, 0, id.length, W0, W1, W2) : 1;
      if (v === 0) return;
      // Tracked, and the call left work (an event, the timer to arm).
      if (v === BUSY) return this.#rest().flush();
    }
    this.#rest().trackOther(id, method, code, options);
  }

  shouldDropResponse(response) {
    const core = this.#core;
    if (core === undefined) return false;
    // The hot paths: a number id, or a string id that crosses as words. Anything else goes
    // to the `Session`, and so does an id whose response the core needs the members of
    // (`NEED`: nothing changed; the `Session` asks again, then with them).
    let v =
      typeof response === "number"
        ? core.wasm.responsePlain(core.h, response, NUMBER_ID, 0, 0, 0)
        : typeof response === "string" && packed(response)
          ? core.wasm.responsePlain(core.h, 0, response.length, W0, W1, W2)
          : NEED;
    // The call left work (output, the timer to arm): done first, as after any call.
    if (v & BUSY) {
      this.#rest().flush();
      v &= ~BUSY;
    }
    if ((v & 0xff) === NEED) return this.#rest().shouldDropResponse(response);
    // Our watched request settled: the `Session` releases its JS objects.
    if (v & SETTLED) {
      this.#rest().settled(response);
      v &= ~SETTLED;
    }
    return v === DROP;
  }

  signal(id) {
    return this.#rest().signal(id);
  }

  inboundSignal(id) {
    return this.#rest().inboundSignal(id);
  }

  cancel(id, reason) {
    return this.#rest().cancel(id, reason);
  }

  shouldDropProgress(token) {
    return this.#rest().shouldDropProgress(token);
  }

  shouldDropIncoming(message) {
    return this.#rest().shouldDropIncoming(message);
  }

  filterIncoming(message) {
    return this.#rest().filterIncoming(message);
  }

  beforeSend(message, options) {
    return this.#rest().beforeSend(message, options);
  }

  setProtocolVersion(version) {
    return this.#rest().setProtocolVersion(version);
  }

  get revision() {
    return this.#core === undefined ? undefined : this.#rest().revision;
  }

  isInFlight(id) {
    return this.#rest().isInFlight(id);
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
    const full = this.#full;
    if (full !== undefined) return full.close();
    // Nothing but the wasm session yet: no request is watched, no timer is armed.
    this.#env.sessions.unregister(this);
    core.wasm.freeSession(core.h);
  }

  free() {
    this.close();
  }

  [Symbol.dispose]() {
    this.close();
  }
}
