// Every file the npm package ships, and nothing else: what package.json "files" selects from
// a build (scripts/build.sh). packaging.test.mjs checks each is in the packed tarball;
// release.test.mjs checks that `npm publish --dry-run` lists exactly these. A file added to
// or dropped from the package is a change to this list.
export const PACKAGE_FILES = Object.freeze(
  [
    // npm's own, and the documents a user reads.
    "package.json",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    "BENCHMARKS.md",
    "CONTRIBUTING.md",
    // The guides the README links to (docs/; the generated API reference, docs/api/, is not shipped).
    "docs/README.md",
    "docs/architecture.md",
    "docs/bridge.md",
    "docs/conformance.md",
    "docs/faq.md",
    "docs/hosts.md",
    "docs/integrations.md",
    "docs/low-level-api.md",
    "docs/migrating-from-0.1.md",
    "docs/reference.md",
    "docs/server.md",
    "docs/spec-revisions.md",
    // The library (ESM; js/node/ is bundled into dist/node/ and not shipped as is).
    "js/index.d.ts",
    "js/browser.js",
    "js/session.js",
    "js/encoder.js",
    "js/output.js",
    "js/routing.js",
    "js/guard.js",
    "js/errors.js",
    "js/reader.js",
    "js/records.js",
    "js/options.js",
    "js/signals.js",
    "js/relay.js",
    // Workers and edge hosts (export conditions workerd, worker, edge-light): the .wasm
    // imported as a compiled module; and the typings of the `./mcp_cancel_bg.wasm` subpath.
    "js/worker.js",
    "js/edge-light.js",
    "js/compiled.js",
    "js/wasm.d.cts",
    // The Node entries for import and require() (esbuild, minified; scripts/bundle-node.mjs) and
    // the latter's typings; createRelay()'s JavaScript, loaded by the entry the first time a
    // relay is made; the source map of each (`node --enable-source-maps`).
    "dist/node/index.mjs",
    "dist/node/index.mjs.map",
    "dist/node/index.cjs",
    "dist/node/index.cjs.map",
    "dist/node/index.d.cts",
    "dist/node/relay.cjs",
    "dist/node/relay.cjs.map",
    // wasm-pack: the session's .wasm and its ES module glue, for browsers and bundlers; the
    // Node entry bundles the same glue and reads the same .wasm.
    "pkg/web/mcp_cancel.js",
    "pkg/web/mcp_cancel.d.ts",
    "pkg/web/mcp_cancel_bg.wasm",
    "pkg/web/mcp_cancel_bg.wasm.d.ts",
    // The core's tables for the JS entries (scripts/build.sh: not in the session's .wasm).
    "pkg/web/mcp_cancel_tables.js",
    // The JS caller of each export of the session's .wasm (scripts/write-calls.mjs).
    "pkg/web/mcp_cancel_calls.js",
    // The relay's own .wasm (createRelay, `mcp-cancel bridge`), Node only.
    "pkg/relay-node/mcp_cancel_relay.js",
    "pkg/relay-node/mcp_cancel_relay.d.ts",
    "pkg/relay-node/mcp_cancel_relay_bg.wasm",
    "pkg/relay-node/mcp_cancel_relay_bg.wasm.d.ts",
    "pkg/relay-node/package.json",
  ].sort(),
);

// Every file the commands' package (`mcp-cancel-cli`, packed from cli/) ships: its
// package.json "files". release.test.mjs checks `npm publish --dry-run` in cli/ lists exactly
// these; packaging.test.mjs installs it beside the library and runs its command.
export const CLI_PACKAGE_FILES = Object.freeze(
  [
    "package.json",
    "README.md",
    "main.js",
    "bridge.js",
    "children.js",
    "config.js",
    "endpoint.js",
    "gate.js",
    "resume.js",
    "streams.js",
    "conformance/main.js",
    "conformance/scenarios.js",
    "conformance/server-scenarios.js",
    "conformance/client-scenarios.js",
    "conformance/client-runner.js",
    "conformance/server-runner.js",
    "conformance/server-preflight.js",
    "conformance/server-checks.js",
    "conformance/connection.js",
    "conformance/report.js",
    "conformance/ci.js",
  ].sort(),
);
