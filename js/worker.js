// mcp-cancel for Cloudflare Workers (export conditions `workerd` and `worker`): the .wasm is
// imported as a compiled WebAssembly.Module, as wrangler bundles a `.wasm` import (its
// default "CompiledWasm" module rule; in a workerd config, a `wasm` module). No `init()`.
import wasmModule from "../pkg/web/mcp_cancel_bg.wasm";
import { apiOver } from "./compiled.js";

export const { CancellationSession, createRelay, guardTransport, init, InvalidArgumentError, McpCancelError, UsageError } = apiOver(
  wasmModule,
  'the import of "mcp-cancel/mcp_cancel_bg.wasm" (export condition workerd/worker)',
);
