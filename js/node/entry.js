// mcp-cancel for Node: the source of dist/node/index.cjs, which both `require("mcp-cancel")`
// and `import … from "mcp-cancel"` load (js/index.js re-exports it), so a process has one
// wasm instance and one set of error classes. The .wasm loads synchronously: no init().
// The wasm-bindgen glue is the web build's (pkg/web/, ES module), bundled in: one file less
// to load at start-up than the nodejs glue beside it, and the instance made here with
// `initSync` from the .wasm read in one call (issue #24).
import { readFileSync } from "node:fs";
import * as wasm from "../../pkg/web/mcp_cancel.js";
import { constantsJson } from "../../pkg/web/mcp_cancel_tables.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "../errors.js";
import { createGuardTransport } from "../guard.js";
import { createSessionClass } from "../session.js";

// `__dirname` is dist/node/ (this file is bundled into dist/node/index.cjs).
const wasmExports = wasm.initSync({ module: new WebAssembly.Module(readFileSync(`${__dirname}/../../pkg/web/mcp_cancel_bg.wasm`)) });

// `DEBUG=mcp-cancel` (the `debug` package's convention): events go to stderr when the
// caller gave no `onEvent` of its own. `debug` is loaded the first time a session is made
// while DEBUG is set: loading it took longer than the rest of mcp-cancel's start-up.
let debug;

function withDefaultOnEvent(options) {
  if (options !== null && typeof options === "object" && options.onEvent !== undefined) return options;
  if (debug === undefined) {
    if (!process.env.DEBUG) return options;
    debug = require("debug")("mcp-cancel");
  }
  if (!debug.enabled) return options;
  return { ...(options ?? {}), onEvent: (event) => debug("%s %o", event.type, event) };
}

/** The cancellation bookkeeping of one MCP connection (see the README and the typings). */
export const CancellationSession = createSessionClass(() => wasmExports, constantsJson, withDefaultOnEvent);

export const guardTransport = createGuardTransport(CancellationSession);

// The relay's .wasm (pkg/relay-node/, the session's .wasm plus the relay) is loaded the first
// time a relay is made: a process that only guards a transport never loads it.
let relayWasm;
function relayBuild() {
  if (relayWasm === undefined) {
    relayWasm = require("../../pkg/relay-node/mcp_cancel_relay.js");
  }
  return relayWasm;
}

// createRelay()'s JavaScript (js/relay.js) is dist/node/relay.cjs (scripts/bundle-node.mjs),
// loaded the first time a relay is made, as its .wasm is: not compiled at start-up.
let relayFactory;

/** A relay between client transports and one server transport (see the README and the typings). */
export function createRelay(options) {
  relayFactory ??= require("./relay.cjs").createRelayFactory(
    () => relayBuild().RelayCore,
    () => JSON.parse(relayBuild().RelayCore.constantsJson()),
  );
  return relayFactory(options);
}

/** Node loads the .wasm with the import: `init()` exists for code shared with browsers and resolves at once. */
export async function init() {}

export { InvalidArgumentError, McpCancelError, UsageError };
