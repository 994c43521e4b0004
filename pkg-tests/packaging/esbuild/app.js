// A browser app built by esbuild (`esbuild app.js --bundle --loader:.wasm=file --outdir=dist`):
// esbuild does not follow the glue's `new URL("mcp_cancel_bg.wasm", import.meta.url)`, so
// the app imports the package's `.wasm` subpath, which the `file` loader copies into dist/
// and turns into its URL, and passes that to `init()`. The page shows what the session did,
// for ../packaging.test.mjs.
import { CancellationSession, init, InvalidArgumentError, McpCancelError } from "mcp-cancel";
import wasmUrl from "mcp-cancel/mcp_cancel_bg.wasm"; // with --loader:.wasm=file: its URL in dist/

import { sessionChecks } from "../../hosts/session-checks.mjs";

const out = document.getElementById("result");
(async () => {
  let beforeInit;
  try {
    new CancellationSession();
  } catch (error) {
    beforeInit = error.code;
  }
  await init(wasmUrl);
  out.textContent = JSON.stringify({ ok: true, beforeInit, wasmUrl, checks: sessionChecks({ CancellationSession, InvalidArgumentError, McpCancelError }) });
})().catch((error) => {
  out.textContent = JSON.stringify({ ok: false, error: `${error?.name}: ${error?.message}`, stack: error?.stack });
});
