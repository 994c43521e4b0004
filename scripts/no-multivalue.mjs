// Marks a .wasm from `cargo build` as not using multi-value returns, before wasm-bindgen reads
// it: `node scripts/no-multivalue.mjs <file.wasm>` (rewrites the file in place).
//
// Why (start-up): wasm-bindgen gives every export that returns a `Result` or a
// string a multi-value return (`(result i32 i32 i32)`) when the module's `target_features`
// section lists `+multivalue`, which Rust's wasm32 std has done since Rust 1.82. V8 (Node 20's
// 11.3) has no generic JS-to-wasm wrapper for multi-value returns: it compiles one wrapper per
// such signature with TurboFan when the module is compiled, ~0.1-0.25 ms each, eight of them
// for the session's .wasm: `new WebAssembly.Module` 2.8-3.9 ms with the
// mark, 1.4-1.9 ms without it, here. Without the mark wasm-bindgen returns those results
// through its stack (`__wbindgen_add_to_stack_pointer` + reads of memory).
//
// The code itself does not change: Rust's wasm32 ABI returns aggregates through memory, so the
// only multi-value functions were wasm-bindgen's own shims. The section is rewritten in place
// (`+multivalue` -> `-multivalue`, same length); a file without the feature is left as it is,
// and anything that is not a wasm module is an error.
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: node scripts/no-multivalue.mjs <file.wasm>");
  process.exit(2);
}
const bytes = readFileSync(file);
if (bytes.readUInt32LE(0) !== 0x6d736100 || bytes.readUInt32LE(4) !== 1) {
  console.error(`${file}: not a wasm module (version 1)`);
  process.exit(1);
}

/** An unsigned LEB128 at `at`: `[value, next offset]`. */
function leb(at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++];
    if (b === undefined) throw new Error(`${file}: truncated at byte ${at}`);
    value += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [value, at];
  }
}

const text = (from, to) => bytes.toString("utf8", from, to);
let changed = false;
for (let at = 8; at < bytes.length; ) {
  const id = bytes[at];
  const [size, body] = leb(at + 1);
  const end = body + size;
  if (id === 0) {
    const [nameLen, nameAt] = leb(body);
    if (text(nameAt, nameAt + nameLen) === "target_features") {
      let [count, p] = leb(nameAt + nameLen);
      for (; count > 0; count--) {
        const prefix = p;
        const [len, featureAt] = leb(p + 1);
        if (text(featureAt, featureAt + len) === "multivalue" && bytes[prefix] === 0x2b /* + */) {
          bytes[prefix] = 0x2d; /* - */
          changed = true;
        }
        p = featureAt + len;
      }
    }
  }
  at = end;
}
if (changed) writeFileSync(file, bytes);
