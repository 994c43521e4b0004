// pkg/web/mcp_cancel_calls.js, the JS caller of every export of the session's `.wasm`, written
// from src/wasm/exports.rs (scripts/build.sh runs this right after scripts/write-tables.mjs;
// `node scripts/write-calls.mjs [exports.rs] [out.js]` writes another pair). The argument
// order of each export lives in its Rust signature; this file turns it into one JS function
// per export, so no hand-written JS passes an argument by position:
//
//   export function track(c, e) { …; return c.wasm.track(c.h, …) >>> 0; }
//
// `c` is the session's core (`{ wasm, h }`: the instance's exports and the session's handle),
// `e` its encoder (js/encoder.js), whose fields, named as the Rust arguments in camelCase,
// the caller sets before the call. Three kinds of argument, by their Rust names and types:
//   - an id (`x_num: f64, x_len: u32, x_w0: u32, x_w1: u32, x_w2: u32`): field `x`, any JS
//     value — a number, an absent id and a short ASCII string (`e.packs`, its words) crossed
//     in the caller itself, any other by `e.crossId` (js/encoder.js says how);
//   - a string (`x_len: u32`): field `x`, a string or `undefined`, written by `e.put` into the
//     call's strings buffer; every string of a call, an id's too, in argument order (the
//     order the wasm layer reads them in), after `e.open` picked the buffer for them all
//     (only when one of them goes there: most calls write none);
//   - any other (`u32`, `i32`, `f64`, `bool`): field `x` as it is.
// A `[hot]` export's caller first tries its commonest call, a number as its first id with every
// other id and every string absent: those cross as constants, with no `e.words`. A
// `[hot(a, b)]` export has a second caller, `<export>Common(c, e)`, that reads only the
// fields `a` and `b` name (its first id first) and passes every other argument as absent;
// `[common(a, b)]` gives an export that caller alone (its session found as any other's).
// A `u32` or `usize` result comes back from wasm as an `i32` and is returned `>>> 0`; a
// `bool` as `!== 0`. `newSession` takes the instance's exports and an object with its
// settings' fields instead of `c` and `e`; `freeSession` takes `c`.
//
// Anything in exports.rs this script does not understand — another shape of entry, an entry
// without its `;`, a type without a conversion, an id's scalars out of order, two arguments
// with one field name, a field that means one thing in one export and another in the next,
// an export outside the list — stops the build.
import { readFileSync, writeFileSync } from "node:fs";

const [source = "src/wasm/exports.rs", target = "pkg/web/mcp_cancel_calls.js"] = process.argv.slice(2);
const text = readFileSync(source, "utf8");

/** Stops the build: exports.rs has a shape this script does not know. */
function fail(message) {
  throw new Error(`scripts/write-calls.mjs: ${source}: ${message}`);
}

const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** The conversion of each Rust result type (the raw export's value `v`). */
const RESULTS = { u32: (v) => `${v} >>> 0`, usize: (v) => `${v} >>> 0`, bool: (v) => `${v} !== 0`, f64: (v) => v };
/** The JSDoc type of a scalar argument's field, by its Rust type. */
const SCALARS = { u32: "number", i32: "number", f64: "number", bool: "boolean" };
const ID_PARTS = [
  ["num", "f64"],
  ["len", "u32"],
  ["w0", "u32"],
  ["w1", "u32"],
  ["w2", "u32"],
];

/**
 * The encoder's own members (js/encoder.js), which no argument's field may be: what the callers
 * call (`open`, `size`, `put`, `words`, `crossId`) and where an id's five scalars come out (`num`, `len`,
 * `w0`–`w2`), with the state they keep.
 */
const ENCODER_OWN = new Set(["open", "size", "put", "packs", "words", "crossId", "crossReason", "num", "len", "w0", "w1", "w2", "core", "memory", "bound", "view", "at", "scratchAt", "scratchView", "packed", "pw0", "pw1", "pw2"]);

/** What a field may not be called: the callers' own names (`c`, `e`, the constants they import) and JS's reserved words. */
const JS_RESERVED = new Set(["c", "e", "ID_LEN_ABSENT", "NO_STRING", "NUMBER_ID", ...("arguments await break case catch class const continue debugger default delete do else enum eval export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield").split(" ")]);

/** `name: type, …` (Rust) as `[name, type]` pairs. */
function parameters(list, where) {
  return list
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => {
      const m = /^([a-z][a-z0-9_]*)\s*:\s*([A-Za-z0-9_]+)$/.exec(p);
      if (m === null) fail(`${where}: the argument \`${p}\` is not \`name: type\``);
      return [m[1], m[2]];
    });
}

/**
 * The arguments of an export as the JS caller passes them: `{ kind: "id" | "string" |
 * "scalar", field, rust, type }`, in order; an id is its five scalars' group.
 */
function argumentsOf(params, where) {
  const out = [];
  for (let i = 0; i < params.length; i++) {
    const [name, type] = params[i];
    if (/^(num|len|w0|w1|w2)$/.test(name)) fail(`${where}: \`${name}\` names no id (an id's scalars are \`x_num, x_len, x_w0, x_w1, x_w2\`)`);
    const part = /_(num|w0|w1|w2)$/.exec(name);
    if (part !== null) {
      if (part[1] !== "num") fail(`${where}: \`${name}\` is not in an id's group (\`x_num, x_len, x_w0, x_w1, x_w2\`)`);
      const base = name.slice(0, -"_num".length);
      ID_PARTS.forEach(([suffix, t], k) => {
        const [n, ty] = params[i + k] ?? [];
        if (n !== `${base}_${suffix}` || ty !== t) fail(`${where}: the id \`${base}\` needs \`${base}_${suffix}: ${t}\` at its place ${k + 1}, not \`${n}: ${ty}\``);
      });
      out.push({ kind: "id", field: camel(base), rust: ID_PARTS.map(([s]) => `${base}_${s}`), rustType: "ID", type: "unknown" });
      i += ID_PARTS.length - 1;
    } else if (name.endsWith("_len")) {
      if (type !== "u32") fail(`${where}: the string \`${name}\` is a ${type}, not a u32 (its length in bytes)`);
      out.push({ kind: "string", field: camel(name.slice(0, -"_len".length)), rust: [name], rustType: type, type: "string | undefined" });
    } else {
      if (!(type in SCALARS)) fail(`${where}: \`${name}: ${type}\`: no JS conversion for ${type}`);
      out.push({ kind: "scalar", field: camel(name), rust: [name], rustType: type, type: SCALARS[type] });
    }
  }
  const seen = new Set();
  for (const a of out) {
    if (JS_RESERVED.has(a.field)) fail(`${where}: the field \`${a.field}\` is not a JS variable name (the callers name their locals by the fields)`);
    if (ENCODER_OWN.has(a.field)) fail(`${where}: the field \`${a.field}\` is a member of the encoder itself (js/encoder.js)`);
    if (seen.has(a.field)) fail(`${where}: two arguments are the field \`${a.field}\``);
    seen.add(a.field);
  }
  return out;
}

/** The one `entry_points! { … }` list: its text between the braces. */
function entryList() {
  const start = text.search(/^entry_points!\s*\{/m);
  if (start < 0) fail("no `entry_points! { … }` list");
  if (text.slice(start + 1).search(/^entry_points!\s*\{/m) >= 0) fail("two `entry_points!` lists");
  const open = text.indexOf("{", start);
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  fail("the `entry_points!` list does not end");
}

/** The list's entries, each its text without doc comments, split at the `;` that ends it. */
function entries(list) {
  const out = [];
  let depth = 0;
  let current = "";
  for (const line of list.split("\n")) {
    // A comment after code, or a doc comment: no part of a signature.
    const code = line.replace(/\/\/.*$/, "").trim();
    if (code === "") continue;
    if (code.startsWith("#")) fail(`an attribute in the entry list: \`${code}\``);
    for (const ch of code + " ") {
      if ("({[".includes(ch)) depth++;
      else if (")}]".includes(ch)) depth--;
      if (ch === ";" && depth === 0) {
        out.push(current.trim());
        current = "";
      } else current += ch;
    }
  }
  if (current.trim() !== "") fail(`an entry without its \`;\`: \`${current.trim()}\``);
  return out;
}

const ENTRY = /^([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(?:\[\s*([a-z]+)\s*(?:\(([^()]*)\)\s*)?\]\s*)?fn\s+([a-z_][a-z0-9_]*)\s*\(([^()]*)\)\s*->\s*([A-Za-z0-9_]+)\s*,\s*none:\s*(.+)$/s;

const exportsList = entries(entryList()).map((entry) => {
  const m = ENTRY.exec(entry);
  if (m === null) fail(`an entry not of the shape \`jsName => [hot(…)|common(…)]? fn method(arg: type, …) -> type, none: value;\`: \`${entry.slice(0, 120)}\``);
  const [, js, mark, given, method, list, result, none] = m;
  if (/\w+\s*=>\s*(?:\[\s*\w+\s*(?:\([^()]*\)\s*)?\]\s*)?fn\s/.test(none)) fail(`${js}: its entry runs into the next one (a \`;\` missing after \`none: …\`)`);
  if (mark !== undefined && mark !== "hot" && mark !== "common") fail(`${js}: unknown mark \`[${mark}]\``);
  if (mark === "common" && given === undefined) fail(`${js}: \`[common]\` names no arguments: \`[common(id, …)]\``);
  if (!(result in RESULTS)) fail(`${js}: no JS conversion for its result type ${result}`);
  const args = argumentsOf(parameters(list, js), js);
  // `[hot(a, b)]`, `[common(a, b)]`: the arguments its commonest call gives (an id by its
  // name without `_num`).
  let common;
  if (given !== undefined) {
    const names = given.split(",").map((n) => n.trim()).filter((n) => n !== "");
    common = names.map((n) => {
      const a = args.find((x) => (x.kind === "id" ? x.rust[0].slice(0, -"_num".length) : x.rust[0]) === n);
      if (a === undefined) fail(`${js}: \`[${mark}(${given})]\` names \`${n}\`, which is none of its arguments`);
      if (a.kind === "string") fail(`${js}: \`[${mark}(${given})]\` names the string \`${n}\` (its common call has none)`);
      return a;
    });
    if (common.length === 0 || common[0] !== args.find((x) => x.kind === "id")) fail(`${js}: \`[${mark}(${given})]\` does not start with its first id`);
  }
  return { js, method, mark, hot: mark === "hot", common, args, result };
});

/** A `#[wasm_bindgen(js_name = X)] pub fn y(…) -> T` outside the list (`newSession`, `freeSession`). */
function standalone(js) {
  const re = new RegExp(String.raw`#\[wasm_bindgen\(js_name\s*=\s*${js}\)\]\s*(?:#\[[^\]]*\]\s*|//[^\n]*\n\s*)*pub fn ([a-z_][a-z0-9_]*)\s*\(([^()]*)\)\s*(?:->\s*([A-Za-z0-9_]+)\s*)?\{`);
  const m = re.exec(text);
  if (m === null) fail(`no \`#[wasm_bindgen(js_name = ${js})] pub fn …\``);
  const result = m[3];
  if (result !== undefined && !(result in RESULTS)) fail(`${js}: no JS conversion for its result type ${result}`);
  return { js, method: m[1], params: parameters(m[2], js), result };
}

const created = standalone("newSession");
const freed = standalone("freeSession");
const bindings = [...text.matchAll(/#\[wasm_bindgen\(js_name\s*=\s*(\w+)\)\]/g)].map((m) => m[1]);
for (const js of bindings) if (js !== "newSession" && js !== "freeSession") fail(`\`${js}\` is exported outside \`entry_points!\`, and this script writes no caller for it`);
if (freed.params.length !== 1 || freed.params[0][0] !== "session" || freed.params[0][1] !== "u32" || freed.result !== undefined) fail("freeSession is not `fn free_session(session: u32)`");
if (created.result !== "u32") fail("newSession does not return the handle (u32)");
const settings = argumentsOf(created.params, "newSession");
for (const a of settings) if (a.kind !== "scalar") fail(`newSession: \`${a.rust[0]}\` is an id or a string; its caller has no encoder`);
const names = new Set(exportsList.map((x) => x.js));
if (names.size !== exportsList.length) fail("an export is listed twice");
for (const js of ["newSession", "freeSession"]) if (names.has(js)) fail(`${js} is in the list and outside it`);

// One encoder holds the fields of every export: a field is one kind of value in all of them.
const fields = new Map();
for (const x of exportsList) {
  for (const a of x.args) {
    const known = fields.get(a.field);
    if (known === undefined) fields.set(a.field, { kind: a.kind, type: a.type, in: [x.js] });
    else if (known.kind !== a.kind || known.type !== a.type) fail(`the field \`${a.field}\` is a ${a.kind} (${a.type}) in ${x.js} and a ${known.kind} (${known.type}) in ${known.in[0]}`);
    else known.in.push(x.js);
  }
}

const DEFAULTS = { id: "undefined", string: "undefined", number: "0", boolean: "false" };
const defaultOf = (f) => (f.kind === "scalar" ? DEFAULTS[f.type] : DEFAULTS[f.kind]);
const rustSignature = (x) => `${x.method}(session: u32${x.args.map((a) => `, ${a.kind === "id" ? a.rust[0].slice(0, -"_num".length) : a.rust[0]}: ${a.rustType}`).join("")}) -> ${x.result}`;

/** The JS function of one export. */
function caller(x) {
  const strings = x.args.filter((a) => a.kind !== "scalar");
  const ids = strings.filter((a) => a.kind === "id");
  const doc = [
    "/**",
    ` * \`${x.js}\`: [\`SessionCore::${x.method}\`] (src/wasm/bindings.rs says what it does and returns), \`${rustSignature(x)}\`.`,
    " * @param {{ wasm: any, h: number }} c the session's core",
  ];
  if (x.args.length > 0) {
    doc.push(` * @param {import("../../js/encoder.js").Encoder} e the session's encoder, with ${x.args.map((a) => `\`${a.field}\``).join(", ")} set`);
  }
  doc.push(` * @returns {${x.result === "bool" ? "boolean" : "number"}}`, " */");
  const signature = `(c${x.args.length > 0 ? ", e" : ""})`;
  /** The export's call, each id's five scalars from `idOf(a, k)`, each string's length from `lenOf(a)`. */
  const call = (idOf, lenOf) => {
    const passed = ["c.h"];
    for (const a of x.args) {
      if (a.kind === "scalar") passed.push(`e.${a.field}`);
      else if (a.kind === "string") passed.push(lenOf(a));
      else passed.push(...a.rust.map((_, k) => idOf(a, k)));
    }
    return `return ${RESULTS[x.result](`c.wasm.${x.js}(${passed.join(", ")})`)};`;
  };
  if (strings.length === 0) return [...doc, `export function ${x.js}${signature} {`, `  ${call()}`, "}"].join("\n");

  // The general path: every string of the call, an id's too, written in argument order.
  const buffered = `${x.js}Buffered`;
  const general = [
    `/** \`${x.js}\` with its strings written into the strings buffer (and its ids crossed by \`e.crossId\`). */`,
    `function ${buffered}(c, e) {`,
    `  const ${strings.map((a) => `${a.field} = e.${a.field}`).join(", ")};`,
    `  e.open(${strings.map((a) => `e.size(${a.field})`).join(" + ")});`,
  ];
  const lastId = ids.at(-1);
  for (const a of strings) {
    if (a.kind === "string") {
      general.push(`  const ${camel(a.rust[0])} = e.put(${a.field});`);
      continue;
    }
    general.push(`  e.crossId(${a.field});`);
    // Copied out unless it is the last id: the next one crosses through the same fields.
    if (a !== lastId) general.push(`  const ${a.rust.map((r, k) => `${camel(r)} = e.${ID_PARTS[k][0]}`).join(", ")};`);
  }
  const idPart = (a, k) => (a === lastId ? `e.${ID_PARTS[k][0]}` : camel(a.rust[k]));
  general.push(`  ${call(idPart, (a) => camel(a.rust[0]))}`, "}");
  if (ids.length === 0) return [...doc, `export function ${x.js}${signature} {`, ...general.slice(2)].join("\n");

  // The path of most calls: every string absent, every id a number, absent or a short ASCII
  // string (\`e.words\`: its five scalars in \`e.num\` … \`e.w2\`, nothing written to memory).
  // Kept small (under V8's bytecode size for inlining), so that the caller inlines it.
  const fast = [`export function ${x.js}${signature} {`];
  const absent = strings.filter((a) => a.kind === "string").map((a) => `e.${a.field} === undefined`);
  // A hot export's commonest call (\`[hot]\` in exports.rs: bench scenario 1b, the guard's every
  // request): its first id a number, every other id and every string absent. The number
  // crosses as it is and the rest as constants, with no \`e.words\` (scenario 1b with number
  // ids: ~910 → ~860 instructions per request, callgrind).
  if (x.hot) {
    const [first, ...others] = ids;
    const constant = (a, k) => (a === first ? [`e.${a.field}`, "NUMBER_ID", "0", "0", "0"][k] : ["0", "ID_LEN_ABSENT", "0", "0", "0"][k]);
    const tests = [`typeof e.${first.field} === "number"`, ...absent, ...others.map((a) => `e.${a.field} === undefined`)];
    fast.push(`  if (${tests.join(" && ")}) {`, `    ${call(constant, () => "NO_STRING")}`, "  }");
  }
  const tests = [...absent, `e.words(e.${ids[0].field})`];
  fast.push(`  if (${tests.join(" && ")}) {`);
  let indent = "    ";
  ids.forEach((a, i) => {
    if (i > 0) {
      fast.push(`${indent}if (e.words(e.${a.field})) {`);
      indent += "  ";
    }
    if (a !== lastId) fast.push(`${indent}const ${a.rust.map((r, k) => `${camel(r)} = e.${ID_PARTS[k][0]}`).join(", ")};`);
  });
  fast.push(`${indent}${call(idPart, () => "NO_STRING")}`);
  for (let i = ids.length - 1; i >= 0; i--) {
    indent = indent.slice(2);
    fast.push(`${indent}}`);
  }
  fast.push(`  return ${buffered}(c, e);`, "}");
  return [...doc, ...fast, "", ...general, ...(x.common === undefined ? [] : ["", ...commonCaller(x, call)])].join("\n");
}

/**
 * What an argument its common call does not give crosses as: an id or a string absent, an
 * `f64` NaN (not given), any other number `0`, a `bool` `false`.
 */
function absentValue(a) {
  if (a.kind === "string") return "NO_STRING";
  if (a.kind === "id") return ["0", "ID_LEN_ABSENT", "0", "0", "0"];
  return { f64: "NaN", bool: "false" }[a.rustType] ?? "0";
}

/**
 * The caller of a `[hot(…)]` or `[common(…)]` export's commonest call (`<export>Common`):
 * only the fields it names are read, every other argument crosses as absent (`absentValue`).
 * The caller sets only those fields, not all of them, and this stays small enough for V8 to
 * inline (bench scenario 1b: the session's `track` and the first call of a response; the
 * guard: `beforeSend` of a plain request). Its first id crosses as
 * the general caller's does; when that needs the strings buffer, the other fields are set
 * absent and the general caller is called.
 */
function commonCaller(x, call) {
  const [first, ...rest] = x.common;
  const name = `${x.js}Common`;
  const given = (a) => x.common.includes(a);
  const scalar = (a) => (given(a) ? `e.${a.field}` : absentValue(a));
  const callWith = (idOf) => {
    const passed = ["c.h"];
    for (const a of x.args) {
      if (a.kind === "scalar") passed.push(scalar(a));
      else if (a.kind === "string") passed.push("NO_STRING");
      else if (a === first) passed.push(...idOf());
      else passed.push(...absentValue(a));
    }
    return `return ${RESULTS[x.result](`c.wasm.${x.js}(${passed.join(", ")})`)};`;
  };
  // Only the first id crosses as given: any other is absent.
  for (const a of rest) if (a.kind !== "scalar") fail(`${x.js}: \`[${x.mark}(…)]\` gives \`${a.field}\`, an id after its first`);
  const others = x.args.filter((a) => !given(a));
  return [
    "/**",
    ` * \`${x.js}\` with only ${x.common.map((a) => `\`${a.field}\``).join(", ")} set (its commonest call, \`[${x.mark}(…)]\` in exports.rs): ${others.map((a) => `\`${a.field}\``).join(", ")} cross as absent, whatever the encoder holds.`,
    " * @param {{ wasm: any, h: number }} c the session's core",
    ` * @param {import("../../js/encoder.js").Encoder} e the session's encoder, with ${x.common.map((a) => `\`${a.field}\``).join(", ")} set`,
    ` * @returns {${x.result === "bool" ? "boolean" : "number"}}`,
    " */",
    `export function ${name}(c, e) {`,
    `  const ${first.field} = e.${first.field};`,
    `  if (typeof ${first.field} === "number") ${callWith(() => [first.field, "NUMBER_ID", "0", "0", "0"])}`,
    `  if (e.words(${first.field})) ${callWith(() => ID_PARTS.map(([p]) => `e.${p}`))}`,
    ...others.map((a) => `  e.${a.field} = ${a.kind === "scalar" ? absentValue(a) : "undefined"};`),
    `  return ${x.js}(c, e);`,
    "}",
  ];
}

const out = [
  "// The JS caller of each export of the session's .wasm, written by scripts/write-calls.mjs from",
  "// src/wasm/exports.rs: the arguments in the Rust order, named as the Rust arguments (camelCase),",
  "// read from the session's encoder (js/encoder.js), with the result's conversion.",
  "",
  'import { ID_LEN_ABSENT, NO_STRING, NUMBER_ID } from "./mcp_cancel_tables.js";',
  "",
  "/**",
  ` * \`newSession\`: [\`SessionCore::new\`], \`${created.method}(${created.params.map(([n, t]) => `${n}: ${t}`).join(", ")}) -> u32\`: the session's handle, \`0\` when none could be made.`,
  " * @param {any} wasm the instance's exports",
  ` * @param {{ ${settings.map((a) => `${a.field}: ${a.type}`).join(", ")} }} s`,
  " * @returns {number}",
  " */",
  "export function newSession(wasm, s) {",
  `  return wasm.newSession(${settings.map((a) => `s.${a.field}`).join(", ")}) >>> 0;`,
  "}",
  "",
  "/**",
  " * `freeSession`: frees the session; its handle names none from now on.",
  " * @param {{ wasm: any, h: number }} c the session's core",
  " */",
  "export function freeSession(c) {",
  "  c.wasm.freeSession(c.h);",
  "}",
  "",
  ...exportsList.flatMap((x) => [caller(x), ""]),
  "/**",
  " * Gives `e` every field the callers above read, each absent or zero: the encoder's constructor",
  " * calls it, so that every encoder has one shape whatever the calls made with it.",
  " * @param {any} e",
  " */",
  "export function initArguments(e) {",
  ...[...fields].map(([name, f]) => `  e.${name} = ${defaultOf(f)}; // ${f.kind === "scalar" ? f.type : f.kind}: ${f.in.join(", ")}`),
  "}",
  "",
];
writeFileSync(target, out.join("\n"));
