// A Cloudflare Worker: no init(), the .wasm comes with the import.
import { CancellationSession } from "mcp-cancel";

export default {
  async fetch() {
    const sent = [];
    const session = new CancellationSession({ send: (message) => sent.push(message) }); // your transport's send
    const stop = new AbortController();
    session.track(1, "tools/call", { signal: stop.signal }); // when request 1 goes out
    stop.abort("user pressed Cancel"); // → one notifications/cancelled through `send`
    const late = session.shouldDropIncoming({ jsonrpc: "2.0", id: 1, result: {} }); // → true: dropped
    return Response.json({ sent, late });
  },
};
