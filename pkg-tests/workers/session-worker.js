// A Worker that imports mcp-cancel with no set-up (the `workerd`/`worker`/`edge-light` entry
// imports its own .wasm) and answers each request with the session checks' results as JSON.
import * as api from "mcp-cancel";

import { sessionChecks } from "../hosts/session-checks.mjs";

export default {
  async fetch() {
    try {
      return Response.json({ ok: true, checks: sessionChecks(api), exports: Object.keys(api).sort() });
    } catch (error) {
      return Response.json({ ok: false, error: `${error?.name}: ${error?.message}`, stack: error?.stack });
    }
  },
};
