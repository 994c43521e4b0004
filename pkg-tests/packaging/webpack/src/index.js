// A browser app built by webpack 5 with no configuration (its defaults: this file is the
// entry, dist/main.js the bundle, target "web"): the package's browser entry, whose glue finds
// its .wasm with `new URL("mcp_cancel_bg.wasm", import.meta.url)`, which webpack 5 emits as an
// asset of its own. The page shows what the session did, for ../../packaging.test.mjs.
import * as api from "mcp-cancel";

import { sessionChecks } from "../../../hosts/session-checks.mjs";

const out = document.getElementById("result");
(async () => {
  let beforeInit;
  try {
    new api.CancellationSession();
  } catch (error) {
    beforeInit = error.code;
  }
  await api.init();
  out.textContent = JSON.stringify({ ok: true, beforeInit, checks: sessionChecks(api) });
})().catch((error) => {
  out.textContent = JSON.stringify({ ok: false, error: `${error?.name}: ${error?.message}`, stack: error?.stack });
});
