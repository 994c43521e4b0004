// mcp-cancel over a compiled WebAssembly.Module that the host's bundler hands in: the shared
// part of the entries for Workers (js/worker.js: `workerd`, `worker`) and Vercel's Edge
// Runtime (js/edge-light.js: `edge-light`). Those hosts compile no WebAssembly at run time
// and have no file next to the module to fetch, so the entry imports the .wasm as a module
// (wrangler's "CompiledWasm" rule; Vercel's `?module`) and the session instantiates it,
// synchronously, the first time one is made. No `init()` is needed.
import * as wasm from "../pkg/web/mcp_cancel.js";
import { InvalidArgumentError, McpCancelError, UsageError } from "./errors.js";
import { createGuardTransport } from "./guard.js";
import { createSessionClass } from "./session.js";

/**
 * The package's API over `wasmModule` (what the entry's `.wasm` import gave), instantiated
 * on first use: importing costs nothing at a Worker's start-up.
 *
 * @param {unknown} wasmModule
 * @param {string} how how the entry imports it, for the error when a bundler gave something else
 */
export function apiOver(wasmModule, how) {
  let instantiated = false;
  let wasmExports;
  function instantiate() {
    if (instantiated) return;
    if (!(wasmModule instanceof WebAssembly.Module)) {
      const got = wasmModule === null ? "null" : typeof wasmModule === "object" ? Object.prototype.toString.call(wasmModule) : typeof wasmModule;
      throw new UsageError(
        `mcp-cancel: ${how} gave ${got}, not a WebAssembly.Module: bundle the .wasm as a compiled module (wrangler's default "CompiledWasm" rule), or import "mcp-cancel" without the workerd/worker/edge-light condition and pass the module to \`await init(module)\``,
        "ERR_NOT_INITIALIZED",
        undefined,
      );
    }
    wasmExports = wasm.initSync({ module: wasmModule });
    instantiated = true;
  }

  const Session = createSessionClass(() => wasmExports);

  /** The same class as in Node and browsers; its .wasm is instantiated when the first one is made. */
  class CancellationSession extends Session {
    constructor(options) {
      instantiate();
      super(options);
    }
  }

  return {
    CancellationSession,
    guardTransport: createGuardTransport(CancellationSession),
    /** The .wasm came with the import: `init()` instantiates it now and resolves (any argument is ignored). */
    init: async () => instantiate(),
    /** The relay is for Node (its .wasm is built for Node). */
    createRelay() {
      throw new UsageError("mcp-cancel: createRelay() runs in Node only (a relay between MCP transports is a server-side job)", "ERR_NODE_ONLY", undefined);
    },
    InvalidArgumentError,
    McpCancelError,
    UsageError,
  };
}
