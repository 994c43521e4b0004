// mcp-cancel for Node: the source of dist/node/index.cjs, which both `require("mcp-cancel")`
// and `import … from "mcp-cancel"` load (js/index.js re-exports it), so a process has one
// wasm instance and one set of error classes. The .wasm loads synchronously: no init().
import wasm from "../../pkg/node/mcp_cancel.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "../errors.js";
import { withFastPaths } from "../fast.js";
import { createGuardTransport } from "../guard.js";

wasm.__registerErrorClasses(InvalidArgumentError, UsageError);

// `DEBUG=mcp-cancel` (the `debug` package's convention): events go to stderr when the
// caller gave no logger of its own. `debug` is loaded the first time a session is made
// while DEBUG is set (its `enable()` sets DEBUG too): loading it took longer than the rest
// of mcp-cancel's start-up.
let debug;

function withDefaultLogger(options) {
  if (options !== null && typeof options === "object" && options.logger !== undefined) return options;
  if (debug === undefined) {
    if (!process.env.DEBUG) return options;
    debug = require("debug")("mcp-cancel");
  }
  if (!debug.enabled) return options;
  return { ...(options ?? {}), logger: (event) => debug("%s %o", event.type, event) };
}

/** The cancellation bookkeeping of one MCP connection (see the README and the typings). */
export class CancellationSession extends withFastPaths(wasm.CancellationSession) {
  constructor(options) {
    super(withDefaultLogger(options));
  }
}

export const guardTransport = createGuardTransport(CancellationSession);

/** Node loads the .wasm with the import: `init()` exists for code shared with browsers and resolves at once. */
export async function init() {}

export { InvalidArgumentError, McpCancelError, UsageError };
