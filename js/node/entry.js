// mcp-cancel for Node: the source of both Node entries (scripts/bundle-node.mjs), each one
// file: dist/node/index.mjs, what `import … from "mcp-cancel"` loads (an ES module: no
// CommonJS loader started for an ESM program), and
// dist/node/index.cjs, what `require("mcp-cancel")` loads. A process that loads both has one
// API: whichever loads first makes it (its wasm instance, its classes) and leaves it on
// `globalThis` under `API_KEY`; the other hands out the same one. The .wasm loads
// synchronously: no init(). The wasm-bindgen glue is the web build's (pkg/web/, ES module),
// bundled in, and the instance made here with `initSync` from the .wasm read in one call.
import * as wasm from "../../pkg/web/mcp_cancel.js";
import * as ownErrors from "../errors.js";
import { createGuardTransport } from "../guard.js";
import { createSessionClass } from "../session.js";

// Node's own modules come from `process.getBuiltinModule` (Node 20.16, 22.3), not from
// `import`: an ES module that imports `node:fs` makes Node build the module's whole ES module
// face (every export of `fs`, `fs.promises` with it), 1.2 ms of a process's start-up here,
// and `node:module` 0.4 ms. The engines field says so; an
// older Node gets this error rather than a TypeError.
if (typeof process.getBuiltinModule !== "function") {
  throw new Error(`mcp-cancel needs Node 20.16 or later (process.getBuiltinModule); this is Node ${process.version}`);
}
const { readFileSync } = process.getBuiltinModule("node:fs");

// This bundle's file and folder (dist/node/): `import.meta.filename` and `.dirname`; in the
// CommonJS bundle, `__filename` and `__dirname` (scripts/bundle-node.mjs defines them so).
const here = import.meta.filename;
const dir = import.meta.dirname;

/**
 * Where this copy of the package keeps its API on `globalThis`: one key per copy (its
 * dist/node/ folder), so `import` and `require` of the same copy share one API and two
 * copies (two installs, or two builds in a benchmark) stay apart, as two modules do.
 * Tests that need a fresh instance delete it (pkg-tests/api-1.0.test.mjs, bench/memory.mjs).
 */
const API_KEY = Symbol.for(`mcp-cancel ${dir}`);

/**
 * A cache: `require` for what loads on first use (`debug`, the relay), not made at start-up,
 * and `node:module` not asked for until then (0.1 ms of a first `import` here).
 */
let cachedRequire;
const load = (id) => (cachedRequire ??= process.getBuiltinModule("node:module").createRequire(here))(id);

// The API this process uses: this copy's, made by whichever entry loaded first (its classes too).
export const { CancellationSession, createRelay, guardTransport, init, InvalidArgumentError, McpCancelError, UsageError } = (globalThis[API_KEY] ??= api());

/**
 * The package's API over a new wasm instance, with this bundle's error classes (the first
 * entry of this copy to load makes it; its classes are the ones both entries export).
 */
function api() {
  const wasmExports = wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${dir}/../../pkg/web/mcp_cancel_bg.wasm`)) });

  // `DEBUG=mcp-cancel` (the `debug` package's convention): events go to stderr when the
  // caller gave no `onEvent` of its own. `debug` is loaded the first time a session is made
  // while DEBUG is set: loading it took longer than the rest of mcp-cancel's start-up.
  let debug;
  function withDefaultOnEvent(options) {
    if (options !== null && typeof options === "object" && options.onEvent !== undefined) return options;
    if (debug === undefined) {
      if (!process.env.DEBUG) return options;
      debug = load("debug")("mcp-cancel");
    }
    if (!debug.enabled) return options;
    return { ...(options ?? {}), onEvent: (event) => debug("%s %o", event.type, event) };
  }

  /** The cancellation bookkeeping of one MCP connection (see the README and the typings). */
  const CancellationSession = createSessionClass(() => wasmExports, withDefaultOnEvent);

  // The relay's .wasm (pkg/relay-node/, the session's .wasm plus the relay) and its JavaScript
  // (js/relay.js, dist/node/relay.cjs) load the first time a relay is made: a process that
  // only guards a transport compiles neither. relay.cjs takes its error classes from
  // `require("./index.cjs")`, which hands out this API's.
  let relayWasm;
  const relayBuild = () => (relayWasm ??= load("../../pkg/relay-node/mcp_cancel_relay.js"));
  let relayFactory;

  return {
    CancellationSession,
    guardTransport: createGuardTransport(CancellationSession),
    /** A relay between client transports and one server transport (see the README and the typings). */
    createRelay(options) {
      relayFactory ??= load("./relay.cjs").createRelayFactory(
        () => relayBuild().RelayCore,
        () => JSON.parse(relayBuild().RelayCore.constantsJson()),
      );
      return relayFactory(options);
    },
    /** Node loads the .wasm with the import: `init()` exists for code shared with browsers and resolves at once. */
    async init() {},
    InvalidArgumentError: ownErrors.InvalidArgumentError,
    McpCancelError: ownErrors.McpCancelError,
    UsageError: ownErrors.UsageError,
  };
}
