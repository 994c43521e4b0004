// pkg/web/mcp_cancel_tables.js, the core's tables as the module the JS layer imports (scripts/build.sh
// runs this after the relay's build, whose `RelayCore.sessionConstantsJson()` gives them: the
// session's .wasm does not carry them, for its size and start-up):
//   constantsJson          the whole of `SessionCore.constantsJson()` as text (methods, members
//                          to read, the output's record schema, …), parsed at a process's first
//                          session;
//   TAGS_NUMBER, …         each number of it that is not in a list, as a constant of its own,
//                          named by its path in upper snake case (`verdicts.needFields` →
//                          `VERDICTS_NEED_FIELDS`): a bundler writes them into the code that
//                          compares with them (esbuild inlines constants across modules), so the
//                          JS layer's hot paths compare with literals, and nothing sets them up
//                          at run time.
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const json = require("../pkg/relay-node/mcp_cancel_relay.js").RelayCore.sessionConstantsJson();
const tables = JSON.parse(json);

const snake = (key) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
const constants = [];
(function walk(value, path) {
  if (typeof value === "number") constants.push([path.map(snake).join("_"), value]);
  else if (value !== null && typeof value === "object" && !Array.isArray(value)) for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
})(tables, []);
const names = new Set(constants.map(([name]) => name));
if (names.size !== constants.length) throw new Error("scripts/write-tables.mjs: two of the core's numbers have one name");

writeFileSync(
  "pkg/web/mcp_cancel_tables.js",
  [
    "// The core's tables, SessionCore.constantsJson() of src/wasm/bindings.rs, written by scripts/write-tables.mjs.",
    `export const constantsJson = ${JSON.stringify(json)};`,
    "// Its numbers, each by its path (`verdicts.needFields`: VERDICTS_NEED_FIELDS).",
    ...constants.map(([name, value]) => `export const ${name} = ${value};`),
    "",
  ].join("\n"),
);
