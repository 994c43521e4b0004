// mcp-cancel for browsers and bundlers (ES module). Call `await init()` once before creating
// a session: it fetches and compiles the .wasm that sits next to this build.
import initWasm from "../pkg/web/mcp_cancel.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "./errors.js";
import { createGuardTransport } from "./guard.js";
import { createSessionClass } from "./session.js";

// Caches of the one load of the .wasm: its promise while it loads (`undefined` again after a
// failure), and the instance's exports once it has loaded.
let cachedLoad;
let cachedExports;

/**
 * Loads the WebAssembly module: fetched from next to this module by default, or from
 * `input` (a URL, a `Response`, bytes or a compiled `WebAssembly.Module`). Concurrent
 * calls share one load; after a failure (a wrong URL, a network error) the next call tries
 * again; after a success every call resolves at once.
 *
 * @param {string | URL | Request | Response | BufferSource | WebAssembly.Module} [input]
 * @returns {Promise<void>}
 */
export function init(input) {
  cachedLoad ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(
    (exports) => {
      cachedExports = exports;
    },
    (error) => {
      cachedLoad = undefined;
      throw error;
    },
  );
  return cachedLoad;
}

const Session = createSessionClass(() => cachedExports);

/** See the Node entry: the same class, usable once `init()` has resolved. */
export class CancellationSession extends Session {
  constructor(options) {
    if (cachedExports === undefined) {
      throw new UsageError("mcp-cancel: `await init()` once before creating a CancellationSession in a browser", "ERR_NOT_INITIALIZED", undefined);
    }
    super(options);
  }
}

export const guardTransport = createGuardTransport(CancellationSession);

/** The relay is for Node (its .wasm is built for Node): a clear error here, not a missing export. */
export function createRelay() {
  throw new UsageError("mcp-cancel: createRelay() runs in Node only (a relay between MCP transports is a server-side job)", "ERR_NODE_ONLY", undefined);
}

export { InvalidArgumentError, McpCancelError, UsageError };
