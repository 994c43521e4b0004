// js/fast.js reads messages in JS and calls one internal wasm method per operation; this
// checks it against the full wasm paths on random operation sequences (same return values,
// errors, sent messages, events and state), via bench/fastpath-check.mjs.
import { test } from "node:test";

import { checkFastPaths } from "../bench/fastpath-check.mjs";

test("the fast paths behave exactly like the full paths (300 random sequences of 200 operations)", (t) => {
  checkFastPaths({ runs: 300, steps: 200, log: (line) => t.diagnostic(line.trim()) });
});
