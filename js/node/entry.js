// mcp-cancel for Node: the source of dist/node/index.cjs, which both `require("mcp-cancel")`
// and `import … from "mcp-cancel"` load (js/index.js re-exports it), so a process has one
// wasm instance and one set of error classes. The .wasm loads synchronously: no init().
import wasm from "../../pkg/node/mcp_cancel.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "../errors.js";
import { createGuardTransport } from "../guard.js";
import { createRelayFactory } from "../relay.js";
import { createSessionClass } from "../session.js";

wasm.__registerErrorClasses(InvalidArgumentError, UsageError);

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
export const CancellationSession = createSessionClass(wasm.SessionCore, withDefaultOnEvent);

export const guardTransport = createGuardTransport(CancellationSession);

// The relay's .wasm (pkg/relay-node/, the session's .wasm plus the relay) is loaded the first
// time a relay is made: a process that only guards a transport never loads it.
let relayWasm;
function relayBuild() {
  if (relayWasm === undefined) {
    relayWasm = require("../../pkg/relay-node/mcp_cancel_relay.js");
    relayWasm.__registerErrorClasses(InvalidArgumentError, UsageError);
  }
  return relayWasm;
}

/** A relay between client transports and one server transport (see the README and the typings). */
export const createRelay = createRelayFactory(() => relayBuild().RelayCore, () => JSON.parse(relayBuild().RelayCore.constantsJson()));

/** Node loads the .wasm with the import: `init()` exists for code shared with browsers and resolves at once. */
export async function init() {}

export { InvalidArgumentError, McpCancelError, UsageError };
