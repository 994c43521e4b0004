// A Worker bundled without the workerd/worker conditions (the default, browser entry): it
// imports the `.wasm` subpath itself, as a compiled module, and hands it to `init()`.
import * as api from "mcp-cancel";
import wasm from "mcp-cancel/mcp_cancel_bg.wasm";

import { sessionChecks } from "../hosts/session-checks.mjs";

export default {
  async fetch() {
    try {
      let beforeInit;
      try {
        new api.CancellationSession();
      } catch (error) {
        beforeInit = error.code;
      }
      await api.init(wasm);
      return Response.json({ ok: true, beforeInit, wasmIsModule: wasm instanceof WebAssembly.Module, checks: sessionChecks(api) });
    } catch (error) {
      return Response.json({ ok: false, error: `${error?.name}: ${error?.message}`, stack: error?.stack });
    }
  },
};
