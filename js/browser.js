// mcp-cancel for browsers and bundlers (ES module). Call `await init()` once before creating
// a session: it fetches and compiles the .wasm that sits next to this build.
import initWasm from "../pkg/web/mcp_cancel.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "./errors.js";
import { createGuardTransport } from "./guard.js";
import { createSessionClass } from "./session.js";

let ready;
let initialized = false;
/** The instance's exports, once `init()` has made it. */
let wasmExports;

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
  ready ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(
    (exports) => {
      wasmExports = exports;
      initialized = true;
    },
    (error) => {
      ready = undefined;
      throw error;
    },
  );
  return ready;
}

const Session = createSessionClass(() => wasmExports);

/** See the Node entry: the same class, usable once `init()` has resolved. */
export class CancellationSession extends Session {
  constructor(options) {
    if (!initialized) {
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
