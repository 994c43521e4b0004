// Two start-up floors made from this build (issue #24's start-up row: where the time over the
// rule set's floor goes), written as packages next to the committed floors:
//
//   bench/fixtures/node_modules/mcp-cancel-wasm         this package's own .wasm (pkg/web/) behind
//       the least JavaScript the row's probe needs: the .wasm read in one call, `new
//       WebAssembly.Module` and an instance (the glue's imports as stand-ins, its externref
//       table set up as the glue does), a class whose constructor makes a session without
//       options (`newSession` with what a session given none passes) and whose `track(id)` is
//       one `trackPlain` call with a number id — what the package's own fast path calls;
//   bench/fixtures/node_modules/mcp-cancel-wasm-parsed  the same, with the package's Node bundle
//       (dist/node/index.cjs) inside a function that is never called: V8 reads and pre-parses
//       all of it when the module is compiled, and runs none of it.
//
// So, measured beside the package and the rule set's floor (bench/size.mjs, bench/startup-steps.mjs):
// the first against the floor is what the session's .wasm costs at start-up; the second
// against the first is what compiling the package's JavaScript costs before any of it runs;
// the package against the second is what its JavaScript does when it runs (the top level, the
// first constructor and `track()`). Both are made from the current build each time they are
// used (`node bench/least-js.mjs` writes them; they are not committed: .gitignore).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The names of the two packages (under bench/fixtures/node_modules). */
export const LEAST_JS = "mcp-cancel-wasm";
export const LEAST_JS_PARSED = "mcp-cancel-wasm-parsed";

/**
 * Writes both packages from `from` (a checkout with a build: pkg/web/, dist/node/) into
 * `into` (a node_modules folder; bench/fixtures/node_modules by default). Throws when the
 * build's glue or tables are not what this script reads (say so rather than measure a
 * module that does not run).
 */
export function writeLeastJs(from = root, into = path.join(root, "bench", "fixtures", "node_modules")) {
  const wasm = readFileSync(path.join(from, "pkg/web/mcp_cancel_bg.wasm"));
  const glue = readFileSync(path.join(from, "pkg/web/mcp_cancel.js"), "utf8");
  const tablesText = readFileSync(path.join(from, "pkg/web/mcp_cancel_tables.js"), "utf8");
  const json = /^export const constantsJson = (".*");$/m.exec(tablesText);
  if (json === null) throw new Error("bench/least-js.mjs: no constantsJson in pkg/web/mcp_cancel_tables.js");
  const tables = JSON.parse(JSON.parse(json[1]));
  const code = tables.methods.indexOf("tools/call") + 1;
  if (code === 0 || typeof tables.numberId !== "number") throw new Error("bench/least-js.mjs: the build's tables have no tools/call or numberId");
  // The glue's own set-up of the externref table (its offsets are wasm-bindgen's).
  const table = /__wbindgen_init_externref_table: function\(\) \{\n([^]*?)\n\s*\},/.exec(glue);
  if (table === null) throw new Error("bench/least-js.mjs: no __wbindgen_init_externref_table in pkg/web/mcp_cancel.js");
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(wasm));
  const stand = imports.map(({ module, name }) => {
    const body = name === "__wbindgen_init_externref_table" ? `{ ${table[1].trim().replace(/\s*\n\s*/g, " ")} }` : name.includes("_now_") ? "{ return performance.now(); }" : `{ throw new Error(${JSON.stringify(`${module} ${name}: not expected on the probe's path`)}); }`;
    return `  ${JSON.stringify(name)}() ${body}`;
  });
  const modules = [...new Set(imports.map((i) => i.module))];
  if (modules.length !== 1) throw new Error(`bench/least-js.mjs: imports from ${modules.length} modules`);
  const source = `// Written by bench/least-js.mjs: this package's .wasm behind the least JavaScript the start-up probe needs.
const { readFileSync } = process.getBuiltinModule("node:fs");
let wasm;
const imports = { ${JSON.stringify(modules[0])}: {
${stand.join(",\n")},
} };
wasm = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(\`\${import.meta.dirname}/mcp_cancel_bg.wasm\`)), imports).exports;
wasm.__wbindgen_start();
export class CancellationSession {
  #h = wasm.newSession(0, NaN, NaN, NaN, NaN, NaN, 0, false, Math.random() * 2 ** 52);
  track(id) {
    if (wasm.trackPlain(this.#h, ${code}, id, ${tables.numberId}, 0, 0, 0) !== 0) throw new Error("not tracked");
  }
}
`;
  const bundle = readFileSync(path.join(from, "dist/node/index.cjs"), "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n");
  const parsed = `${source}
// The package's Node bundle (dist/node/index.cjs), compiled with this module and never run.
function neverCalled(module, exports, require, __filename, __dirname) {
${bundle}
}
`;
  for (const [name, text] of [
    [LEAST_JS, source],
    [LEAST_JS_PARSED, parsed],
  ]) {
    const dir = path.join(into, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ name, private: true, type: "module", exports: "./index.js" }, null, 2)}\n`);
    writeFileSync(path.join(dir, "index.js"), text);
    writeFileSync(path.join(dir, "mcp_cancel_bg.wasm"), wasm);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) writeLeastJs();
