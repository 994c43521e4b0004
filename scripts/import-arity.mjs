// Gives each `catch` import of wasm-bindgen's JS glue the parameters its wasm signature has:
// `node scripts/import-arity.mjs <glue.js>...` (rewrites each file in place).
//
// Why (start-up): for an import declared `#[wasm_bindgen(catch)]`, wasm-bindgen
// 0.2.130 writes `function() { return handleError(function (arg0, arg1) { … }, arguments); }`.
// The function the module imports declares no parameter, so V8 (Node 20's 11.3) sees an arity
// mismatch and compiles, when the module is instantiated, a second wasm-to-JS wrapper for
// each such signature beside the one its other imports already use: five more of twenty for
// the session's `.wasm`. Declared with the parameters (`function(arg0, arg1) { … }`), they
// share the wrappers of the other imports. What the function does is unchanged: it still
// hands `arguments` to `handleError`.
//
// A file that calls `handleError` in another shape is an error: the glue's shape changed
// (another wasm-bindgen), and this step must be looked at again. A file with no `catch`
// import at all (the session's glue since its core calls no JS function) is left as it is.
import { readFileSync, writeFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node scripts/import-arity.mjs <glue.js>...");
  process.exit(2);
}
const catchImport = /function\(\) \{ return handleError\(function \(([\w, ]*)\) \{/g;
for (const file of files) {
  const text = readFileSync(file, "utf8");
  let count = 0;
  const out = text.replace(catchImport, (_, params) => {
    count++;
    return `function(${params}) { return handleError(function (${params}) {`;
  });
  if (count === 0 && /handleError\(/.test(text.replace(/function handleError\(/, ""))) {
    console.error(`${file}: no \`catch\` import in wasm-bindgen's shape (function() { return handleError(…) }): see scripts/import-arity.mjs`);
    process.exit(1);
  }
  writeFileSync(file, out);
}
