// A session's wasm memory goes back when the session ends: at close(), or when nothing
// references the session any more (a FinalizationRegistry frees its place in the .wasm's
// table of sessions, src/wasm/sessions.rs). Rounds of sessions with requests in flight
// (those closed with a timer armed too) must leave the linear memory as large as after the first rounds; kept
// sessions, the control, must grow it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { promisify } from "node:util";

const script = fileURLToPath(new URL("./memory/sessions.mjs", import.meta.url));

async function sizes(mode) {
  const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script, mode], { timeout: 120_000 });
  return JSON.parse(stdout);
}

test("sessions kept alive grow the memory (the control)", async () => {
  const s = await sizes("keep");
  assert.ok(s[5] > s[1], `${s}`);
});

for (const mode of ["close", "drop"]) {
  test(`sessions ended by ${mode === "close" ? "close()" : "being dropped"} give their memory back`, async () => {
    const s = await sizes(mode);
    assert.equal(s[5], s[1], `the linear memory after each round: ${s}`);
  });
}
