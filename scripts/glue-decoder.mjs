// Makes a wasm-bindgen `--target web` glue file create its `TextDecoder` the first time it
// decodes a text, not when the module is evaluated:
//   node scripts/glue-decoder.mjs <glue.js>…      (rewrites each file in place)
// wasm-bindgen's glue makes one at its top level and decodes nothing with it: 0.22–0.29 ms of
// every process's first import in Node 20 here, for a decoder the session's glue uses only to
// print a panic's message. scripts/build.sh runs this on pkg/web/mcp_cancel.js (so the Node bundles and
// the browser and worker builds get it).
// A glue of another shape (a wasm-bindgen upgrade) is an error here, not a file left as it was.
import { readFileSync, writeFileSync } from "node:fs";

const MARK = "// scripts/glue-decoder.mjs: the decoder is made at its first use";
const EAGER = "let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });\ncachedTextDecoder.decode();\n";
const USE = "    return cachedTextDecoder.decode(bytes);\n";

/** `text`, a glue module, with its decoder made at first use (unchanged if it already is). */
export function lazyDecoder(text, name = "the glue") {
  if (text.includes(MARK)) return text;
  for (const [what, needle] of [
    ["the decoder made at the top level", EAGER],
    ["the decoder's use", USE],
  ]) {
    const n = text.split(needle).length - 1;
    if (n !== 1) throw new Error(`scripts/glue-decoder.mjs: ${name} has ${n} of ${what} (expected 1: a wasm-bindgen of another shape?)`);
  }
  return text
    .replace(EAGER, `${MARK}\nlet cachedTextDecoder;\n`)
    .replace(USE, "    return (cachedTextDecoder ??= new TextDecoder('utf-8', { ignoreBOM: true })).decode(bytes);\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const file of process.argv.slice(2)) writeFileSync(file, lazyDecoder(readFileSync(file, "utf8"), file));
}
