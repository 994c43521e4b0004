// The package's .wasm files as Node compiles them (issue #24, start-up): scripts/build.sh
// (scripts/no-multivalue.mjs) builds them with no export returning more than one value, since
// V8 compiles a wrapper per such signature when it compiles the module.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";

import { repo } from "./tarball.mjs";

/**
 * The result counts of the exported functions of a wasm module: `[name, results]` pairs, read
 * from its type, import, function and export sections.
 */
function exportResultCounts(bytes) {
  let at = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  const name = () => {
    const len = leb();
    at += len;
    return bytes.toString("utf8", at - len, at);
  };
  const valueTypes = () => {
    const n = leb();
    at += n; // numbers, vectors and externref/funcref are one byte each in this module
    return n;
  };
  const types = [];
  const funcs = []; // type index of each function, imports first
  const exports = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 1) {
      for (let n = leb(); n > 0; n--) {
        assert.equal(bytes[at++], 0x60, "a function type");
        valueTypes();
        types.push(valueTypes());
      }
    } else if (id === 2) {
      const limits = () => {
        const flags = bytes[at++];
        leb();
        if (flags & 1) leb();
      };
      for (let n = leb(); n > 0; n--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === 0) funcs.push(leb());
        else if (kind === 1) {
          at++; // the table's element type
          limits();
        } else if (kind === 2) limits();
        else if (kind === 3) at += 2; // a global's value type and mutability
        else assert.fail(`import kind ${kind}`);
      }
    } else if (id === 3) {
      for (let n = leb(); n > 0; n--) funcs.push(leb());
    } else if (id === 7) {
      for (let n = leb(); n > 0; n--) {
        const exported = name();
        const kind = bytes[at++];
        const index = leb();
        if (kind === 0) exports.push([exported, types[funcs[index]]]);
      }
    }
    at = end;
  }
  return exports;
}

describe("the package's .wasm files", () => {
  // scripts/build.sh (scripts/no-multivalue.mjs): an export that returns more than one value
  // costs a wrapper compiled per signature when Node compiles the module (issue #24, start-up).
  for (const file of ["pkg/web/mcp_cancel_bg.wasm", "pkg/relay-node/mcp_cancel_relay_bg.wasm"]) {
    test(`${file}: no export returns more than one value`, async () => {
      const exports = exportResultCounts(await readFile(path.join(repo, file)));
      assert.ok(exports.length > 20, `${exports.length} exported functions read`);
      const multi = exports.filter(([, results]) => results > 1).map(([n]) => n);
      assert.deepEqual(multi, []);
    });
  }
});
