// mcp-cancel for Node (ESM). The wasm module loads synchronously: no init() needed.
import wasm from "../pkg/node/mcp_cancel.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "./errors.js";
import { createGuardTransport } from "./guard.js";

wasm.__registerErrorClasses(InvalidArgumentError, UsageError);

export const CancellationSession = wasm.CancellationSession;
export const guardTransport = createGuardTransport(CancellationSession);
export { InvalidArgumentError, McpCancelError, UsageError };

/** Node loads the .wasm with the import: `init()` exists for code shared with browsers and resolves at once. */
export async function init() {}
