// The Node build's JavaScript (scripts/build.sh runs it after the .wasm builds), by esbuild:
//   dist/node/index.mjs  what `import … from "mcp-cancel"` loads in Node: js/node/entry.js with
//                        the web glue (pkg/web/mcp_cancel.js: its `import.meta` is only in the
//                        fetching init(), which Node does not use) and the shared js/*.js, as
//                        one ES module (no CommonJS loader started for an ESM program,
//                        and no builtin's ES module face: js/node/entry.js).
//   dist/node/index.cjs  what `require("mcp-cancel")` loads: the same, as CommonJS. A process
//                        that loads both gets one API (js/node/entry.js says how).
//   dist/node/relay.cjs  what only createRelay() needs (js/relay.js and its readers), required by
//                        the entry the first time a relay is made: a process that only guards a
//                        transport does not compile it at start-up (~20 KB of the
//                        entry's ~107 KB). Its error classes are the entry's own (one
//                        `InvalidArgumentError` per process, for `instanceof`).
// The core's tables go in from pkg/web/mcp_cancel_tables.js (scripts/write-tables.mjs wrote it): their
// text, and their numbers, which esbuild writes into the code that compares with them; and the
// callers of the exports from pkg/web/mcp_cancel_calls.js (scripts/write-calls.mjs).
import { readFile } from "node:fs/promises";

import * as esbuild from "esbuild";

// Minified, for start-up (V8 pre-parses every function of a script it compiles, at ~28 µs
// per KB of minified code on the bench machine; minified, the entry's import + first
// `track()` take 0.3–0.5 ms less), with a source map beside each bundle that holds the
// sources it was built from (js/node/entry.js is not shipped, and the glue is bundled without
// its doc comments): `node --enable-source-maps` and debuggers show their lines; Node reads the
// map only with that flag. The minifier renames classes and functions: the names that are part
// of the API (the error classes', `CancellationSession`'s) are written in the classes
// (`static name`). `NO_MINIFY=1 node scripts/bundle-node.mjs` builds them unminified, for a CPU
// profile with the functions' own names (never shipped: scripts/build.sh minifies).
const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  minify: !process.env.NO_MINIFY,
  sourcemap: "linked",
  logLevel: "warning",
  logOverride: { "empty-import-meta": "silent" },
};

/**
 * The web glue without its doc comments: wasm-bindgen copies each Rust doc comment of the
 * exports into the glue (~22 KB of its ~60 KB), and Node reads all of it when it compiles the
 * entry (−0.2 ms of start-up in fresh processes without them). The same comments stay in
 * pkg/web/mcp_cancel.js and its typings, pkg/web/mcp_cancel.d.ts. Only whole `/** … *\/`
 * blocks on lines of their own go, the shape wasm-bindgen writes; the glue's code is kept
 * as it is.
 */
const glueWithoutDocs = {
  name: "glue-without-docs",
  setup(build) {
    build.onLoad({ filter: /[\\/]pkg[\\/]web[\\/]mcp_cancel\.js$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      const contents = text.replace(/^[ \t]*\/\*\*(?:(?!\*\/)[^])*\*\/[ \t]*\n/gm, "");
      if (contents.length > text.length * 0.9) throw new Error(`${args.path}: fewer doc comments than expected; see glueWithoutDocs in scripts/bundle-node.mjs`);
      return { contents, loader: "js" };
    });
  },
};

// Loaded when first used, each from its own file: the relay's .wasm and glue, its JS, and
// `debug` (DEBUG=mcp-cancel).
const entry = {
  ...common,
  entryPoints: ["js/node/entry.js"],
  plugins: [glueWithoutDocs],
  external: ["../../pkg/relay-node/mcp_cancel_relay.js", "./relay.cjs", "debug"],
};
await esbuild.build({ ...entry, format: "esm", outfile: "dist/node/index.mjs" });
// The entry finds its files from `import.meta.filename` and `.dirname`: in CommonJS,
// `__filename` and `__dirname`.
await esbuild.build({
  ...entry,
  outfile: "dist/node/index.cjs",
  define: { "import.meta.filename": "__filename", "import.meta.dirname": "__dirname" },
});

/**
 * js/relay.js's `./errors.js` is the entry's: `require("./index.cjs")`, which hands out the API
 * of whichever entry loaded first (js/node/entry.js), its error classes with it.
 */
const errorsOfTheEntry = {
  name: "errors-of-the-entry",
  setup(build) {
    build.onResolve({ filter: /^\.\/errors\.js$/ }, () => ({ path: "./index.cjs", external: true }));
  },
};

await esbuild.build({
  ...common,
  entryPoints: ["js/relay.js"],
  outfile: "dist/node/relay.cjs",
  plugins: [errorsOfTheEntry],
});
