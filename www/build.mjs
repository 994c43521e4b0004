#!/usr/bin/env node
// Builds the browser demo page (www/) the way a browser app is built: esbuild bundles
// www/app.js with what it imports — the MCP TypeScript SDK client (@modelcontextprotocol/client)
// and mcp-cancel's browser entry (the package's own "browser" export, js/browser.js) — into
// www/dist/app.js, and copies mcp-cancel's .wasm next to it (www/dist/mcp_cancel_bg.wasm), where
// the bundled `init()` fetches it (`new URL("mcp_cancel_bg.wasm", import.meta.url)`).
//
// Run by scripts/build.sh (so by `npm run build`, `npm run demo:web` and `npm test`, after
// pkg/web/ is built), or alone: `node www/build.mjs`. www/dist/ is not committed.
import { copyFile, mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "www/dist");
const WASM = path.join(ROOT, "pkg/web/mcp_cancel_bg.wasm");

try {
  await stat(WASM);
} catch {
  console.error("pkg/web/mcp_cancel_bg.wasm is missing: build the package first (bash scripts/build.sh).");
  process.exit(1);
}

// Start from an empty folder: files of an earlier build must not be served.
await rm(OUT, { recursive: true, force: true });
await mkdir(OUT, { recursive: true });

const result = await build({
  absWorkingDir: ROOT,
  entryPoints: ["www/app.js"],
  outfile: "www/dist/app.js",
  bundle: true,
  format: "esm", // the page loads it with <script type="module">; app.js uses top-level await
  platform: "browser", // the "browser" export conditions: mcp-cancel's js/browser.js, the SDK's browser shims
  target: ["es2022"],
  minify: true,
  keepNames: true, // class and function names stay (error names, stack traces)
  // www/dist/app.js.map maps the bundle to its files for the browser's dev tools, which read
  // them from the server; the dependencies' sources are not copied into it.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: "warning",
});
await copyFile(WASM, path.join(OUT, "mcp_cancel_bg.wasm"));

const bytes = (file) => result.metafile.outputs[file]?.bytes ?? 0;
const wasmBytes = (await stat(WASM)).size;
console.log(
  `\u001b[1m[build]\u001b[0m www/dist/app.js: ${(bytes("www/dist/app.js") / 1024).toFixed(0)} KiB (esbuild), ` +
    `www/dist/mcp_cancel_bg.wasm: ${(wasmBytes / 1024).toFixed(0)} KiB`,
);
