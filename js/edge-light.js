// mcp-cancel for Vercel's Edge Runtime (export condition `edge-light`): the .wasm is imported
// with Vercel's `?module` suffix, which gives a compiled WebAssembly.Module (wrangler's
// "CompiledWasm" rule matches `*.wasm?module` too). No `init()`.
import wasmModule from "../pkg/web/mcp_cancel_bg.wasm?module";
import { apiOver } from "./compiled.js";

export const { CancellationSession, createRelay, guardTransport, init, InvalidArgumentError, McpCancelError, UsageError } = apiOver(
  wasmModule,
  'the import of "mcp-cancel/mcp_cancel_bg.wasm?module" (export condition edge-light)',
);
