// The package's .wasm files as Node compiles and instantiates them (what start-up costs):
// scripts/build.sh builds them with no export returning more than one value
// (scripts/no-multivalue.mjs), since V8 compiles a wrapper per such signature when it compiles
// the module, and gives every import of the JS glue as many parameters as its wasm signature
// (scripts/import-arity.mjs), since V8 compiles a second wrapper per signature for an import
// whose arity differs when it instantiates the module.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";

import { repo } from "./tarball.mjs";

/**
 * The functions of a wasm module, read from its type, import, function and export sections:
 * `exports`, the result count of each exported function (`[name, results]` pairs), and
 * `imports`, the parameter count of each imported function (`[name, params]` pairs).
 */
function functionShapes(bytes) {
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
  const types = []; // [params, results] of each type
  const funcs = []; // type index of each function, imports first
  const exports = [];
  const imports = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 1) {
      for (let n = leb(); n > 0; n--) {
        assert.equal(bytes[at++], 0x60, "a function type");
        const params = valueTypes();
        types.push([params, valueTypes()]);
      }
    } else if (id === 2) {
      const limits = () => {
        const flags = bytes[at++];
        leb();
        if (flags & 1) leb();
      };
      for (let n = leb(); n > 0; n--) {
        name();
        const imported = name();
        const kind = bytes[at++];
        if (kind === 0) {
          const type = leb();
          funcs.push(type);
          imports.push([imported, types[type][0]]);
        }
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
        if (kind === 0) exports.push([exported, types[funcs[index]][1]]);
      }
    }
    at = end;
  }
  return { exports, imports };
}

/**
 * The import object a glue gives `WebAssembly.Instance` when it loads its module (`load`),
 * seen by wrapping the constructor meanwhile.
 */
async function importsOf(load) {
  const Instance = WebAssembly.Instance;
  let seen;
  WebAssembly.Instance = class extends Instance {
    constructor(module, imports) {
      super(module, imports);
      seen ??= imports;
    }
  };
  try {
    await load();
  } finally {
    WebAssembly.Instance = Instance;
  }
  assert.ok(seen !== undefined, "the glue instantiated its module");
  return seen;
}

describe("the package's .wasm files", () => {
  // scripts/build.sh (scripts/no-multivalue.mjs): an export that returns more than one value
  // costs a wrapper compiled per signature when Node compiles the module (start-up).
  for (const file of ["pkg/web/mcp_cancel_bg.wasm", "pkg/relay-node/mcp_cancel_relay_bg.wasm"]) {
    test(`${file}: no export returns more than one value`, async () => {
      const { exports } = functionShapes(await readFile(path.join(repo, file)));
      assert.ok(exports.length > 20, `${exports.length} exported functions read`);
      const multi = exports.filter(([, results]) => results > 1).map(([n]) => n);
      assert.deepEqual(multi, []);
    });
  }

  // scripts/build.sh (scripts/import-arity.mjs): an import whose JS function declares fewer
  // parameters than its wasm signature has costs a second wasm-to-JS wrapper for that
  // signature when the module is instantiated (wasm-bindgen's `catch` imports).
  const glues = [
    [
      "pkg/web/mcp_cancel.js",
      "pkg/web/mcp_cancel_bg.wasm",
      async () => {
        const glue = await import(`${pathToFileURL(path.join(repo, "pkg/web/mcp_cancel.js")).href}?imports`);
        glue.initSync({ module: new WebAssembly.Module(await readFile(path.join(repo, "pkg/web/mcp_cancel_bg.wasm"))) });
      },
    ],
    ["pkg/relay-node/mcp_cancel_relay.js", "pkg/relay-node/mcp_cancel_relay_bg.wasm", () => createRequire(import.meta.url)(path.join(repo, "pkg/relay-node/mcp_cancel_relay.js"))],
  ];
  for (const [glue, file, load] of glues) {
    test(`${glue}: each import declares as many parameters as its wasm signature has`, async () => {
      const { imports } = functionShapes(await readFile(path.join(repo, file)));
      // The session's .wasm imports three (`performance.now`, `console.error` and
      // wasm-bindgen's externref table's start), the relay's more.
      assert.ok(imports.length >= 3, `${imports.length} imported functions read`);
      const given = Object.assign({}, ...Object.values(await importsOf(load)));
      const mismatched = imports.filter(([name, params]) => typeof given[name] !== "function" || given[name].length !== params).map(([name, params]) => `${name}: ${given[name]?.length} of ${params}`);
      assert.deepEqual(mismatched, []);
    });
  }
});

// scripts/build.sh (scripts/glue-decoder.mjs): the web glue makes its `TextDecoder` the first
// time it decodes a text (a panic's message, for `console.error`), not when it is imported:
// 0.2–0.3 ms of every process's first import in Node.
describe("the web glue's TextDecoder", () => {
  test("is not made at import or instantiation, and decodes a panic's message when one comes", async () => {
    const Decoder = globalThis.TextDecoder;
    const error = console.error;
    let made = 0;
    const printed = [];
    globalThis.TextDecoder = class extends Decoder {
      constructor(...args) {
        super(...args);
        made++;
      }
    };
    console.error = (...args) => printed.push(args.join(" "));
    try {
      let glue;
      const imports = Object.assign(
        {},
        ...Object.values(
          await importsOf(async () => {
            glue = await import(`${pathToFileURL(path.join(repo, "pkg/web/mcp_cancel.js")).href}?decoder`);
            glue.initSync({ module: new WebAssembly.Module(await readFile(path.join(repo, "pkg/web/mcp_cancel_bg.wasm"))) });
          }),
        ),
      );
      assert.equal(made, 0, "no TextDecoder made by importing and instantiating the glue");
      // The import the core's panic hook calls with a message in its memory (`console.error`):
      // the message written at the bottom of linear memory, which nothing else uses
      // (`wasm-opt --low-memory-unused`).
      const [name] = Object.keys(imports).filter((n) => n.startsWith("__wbg_error_"));
      assert.ok(name !== undefined, "the glue imports console.error");
      const memory = new Uint8Array(glue.initSync().memory.buffer);
      const message = new TextEncoder().encode("panicked at é");
      memory.set(message, 64);
      imports[name](64, message.length);
      imports[name](64, message.length);
      assert.deepEqual(printed, ["panicked at é", "panicked at é"]);
      assert.equal(made, 1, "one TextDecoder, made at the first message");
    } finally {
      globalThis.TextDecoder = Decoder;
      console.error = error;
    }
  });
});
