// `mcp-cancel/mcp_cancel_bg.wasm`: the session's WebAssembly, for hosts and bundlers that need
// the file. Typed as what Workers (wrangler's "CompiledWasm" rule) and Vercel's Edge Runtime
// (`?module`) give for a `.wasm` import: a compiled module, to pass to `init()` of the default
// entry where no export condition picks one that imports it itself. A CommonJS declaration
// (`export =`): the same type for `import` (its default) and `require`.
declare const mcpCancelWasm: WebAssembly.Module;
export = mcpCancelWasm;
