import { CancellationSession, init, InvalidArgumentError } from "mcp-cancel";

const out = document.getElementById("result");
(async () => {
  await init();
  const sent = [];
  const session = new CancellationSession({ send: (m) => sent.push(m) });
  const ac = new AbortController();
  session.track(1, "tools/call", { signal: ac.signal });
  ac.abort("user pressed stop");
  if (sent.length !== 1 || sent[0].params.reason !== "user pressed stop") throw new Error(`sent ${JSON.stringify(sent)}`);
  if (session.shouldDropIncoming({ jsonrpc: "2.0", id: 1, result: {} }) !== true) throw new Error("the late result was not dropped");
  let threw = false;
  try {
    session.track(1.5, "tools/call");
  } catch (e) {
    threw = e instanceof InvalidArgumentError && e.code === "ERR_INVALID_REQUEST_ID";
  }
  if (!threw) throw new Error("a bad id did not throw InvalidArgumentError");
  out.textContent = "ok vite";
})().catch((e) => {
  out.textContent = `FAIL ${e?.stack ?? e}`;
});
