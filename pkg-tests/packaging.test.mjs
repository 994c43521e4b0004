// The packed tarball, installed the way users install it, in tiny projects: Node ESM, Node
// CommonJS, TypeScript (node16, bundler, and a CommonJS .cts), browser apps built by Vite,
// webpack 5 (no configuration) and esbuild (one option: `--loader:.wasm=file`) loaded in
// headless Chromium, and a plain <script type="module"> page with an import map. Each runs the
// same track → cancel → late-drop scenario (pkg-tests/packaging/; the webpack and esbuild
// apps run the session checks every host runs, pkg-tests/hosts/session-checks.mjs).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import * as esbuild from "esbuild";
import { build, preview } from "vite";
import webpack from "webpack";

import { launchChromium } from "./browser/harness.mjs";
import { EXPECTED } from "./hosts/session-checks.mjs";
import { CLI_PACKAGE_FILES, PACKAGE_FILES } from "./package-files.mjs";
import { installTarball, packCliTarball, packTarball, repo } from "./tarball.mjs";

const run = promisify(execFile);
const fixtures = path.join(repo, "pkg-tests/packaging");
const tsc = path.join(repo, "node_modules/.bin/tsc");

describe("the packed npm package in tiny projects", { timeout: 180000 }, () => {
  let tmp;
  let proj;
  let packed;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "mcp-cancel-packaging-"));
    let tarball;
    ({ packed, tarball } = await packTarball(tmp));
    proj = path.join(tmp, "proj");
    await cp(fixtures, proj, { recursive: true });
    // The session checks the webpack and esbuild apps import (../../hosts/…, as in the repository).
    await cp(path.join(repo, "pkg-tests/hosts/session-checks.mjs"), path.join(tmp, "hosts/session-checks.mjs"));
    // The hosts guide's browser example, served from the project root as printed.
    await cp(path.join(repo, "examples", "browser.html"), path.join(proj, "browser.html"));
    await writeFile(path.join(proj, "package.json"), JSON.stringify({ name: "packaging", private: true }));
    await installTarball(proj, tarball);
  });

  after(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test("the tarball holds only what is needed", (t) => {
    const files = packed.files.map((f) => f.path).sort();
    t.diagnostic(`${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${files.length} files`);
    for (const f of files) t.diagnostic(`  ${f}`);
    for (const needed of PACKAGE_FILES) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
    for (const f of files) {
      assert.doesNotMatch(f, /^(src|tests|pkg-tests|demo|scripts|target|node_modules|www)\//, `${f} is not for users`);
      assert.doesNotMatch(f, /\.gitignore$/, `${f} is not for users`);
    }
  });

  test("Node ESM: import", async () => {
    const { stdout } = await run(process.execPath, ["esm/index.js"], { cwd: proj });
    assert.match(stdout, /ok node-esm/);
  });

  test("Node CommonJS: require, and the same instance as import", async () => {
    const { stdout } = await run(process.execPath, ["cjs/index.js"], { cwd: proj });
    assert.match(stdout, /ok node-cjs/);
  });

  test("a Node without process.getBuiltinModule (before 20.16 / 22.3): import and require fail with a clear error", async () => {
    const probes = [
      ["--input-type=module", "-e", 'delete process.getBuiltinModule; await import("mcp-cancel");'],
      ["-e", 'delete process.getBuiltinModule; require("mcp-cancel");'],
    ];
    for (const args of probes) {
      await assert.rejects(run(process.execPath, args, { cwd: proj }), (e) => /mcp-cancel needs Node 20\.16 or later \(process\.getBuiltinModule\); this is Node v/.test(e.stderr), args.join(" "));
    }
  });

  test("a light install: no MCP SDK (npm ls --omit=dev), no command; createRelay loads the relay's .wasm", async (t) => {
    // A user who installs only the library gets no @modelcontextprotocol/*.
    const { stdout: tree } = await run("npm", ["ls", "--omit=dev", "--all", "--parseable", "--long"], { cwd: proj });
    const installed = tree.split("\n").filter(Boolean).map((line) => line.split(":")[1]).filter(Boolean);
    t.diagnostic(`npm ls --omit=dev: ${installed.join(", ")}`);
    assert.ok(installed.some((p) => p.startsWith("mcp-cancel@")), tree);
    assert.deepEqual(installed.filter((p) => p.startsWith("@modelcontextprotocol/") || /^(express|cors|raw-body)@/.test(p)), [], "the library installs no MCP SDK and no HTTP server");
    assert.equal(existsSync(path.join(proj, "node_modules/.bin/mcp-cancel")), false, "the commands are mcp-cancel-cli's");
    const script =
      'const { createRelay } = require("mcp-cancel"); const t = { start: async () => {}, send: async () => {}, close: async () => {} }; const r = createRelay({ upstream: t }); r.connect({ ...t }); console.log("relay", r.clientCount, r.inFlight);';
    const relay = await run(process.execPath, ["-e", script], { cwd: proj });
    assert.match(relay.stdout, /relay 1 0/);
  });

  test("Node: DEBUG=mcp-cancel prints events, and nothing is printed without it", async () => {
    const script = 'const { CancellationSession } = require("mcp-cancel"); const s = new CancellationSession(); s.track(1, "tools/call"); s.cancel(1, "r");';
    const quiet = await run(process.execPath, ["-e", script], { cwd: proj, env: { ...process.env, DEBUG: "" } });
    assert.equal(quiet.stderr, "");
    const loud = await run(process.execPath, ["-e", script], { cwd: proj, env: { ...process.env, DEBUG: "mcp-cancel" } });
    assert.match(loud.stderr, /mcp-cancel cancel-sent/);
  });

  for (const config of ["tsconfig.node16.json", "tsconfig.bundler.json", "tsconfig.cjs.json"]) {
    test(`TypeScript: tsc --noEmit -p ${config} (what must and must not type-check)`, async () => {
      await run(tsc, ["-p", path.join(proj, "ts", config)], { cwd: path.join(proj, "ts") }).catch((error) => {
        assert.fail(`tsc failed:\n${error.stdout}${error.stderr}`);
      });
    });
  }

  describe("browsers", () => {
    let chromium;
    const servers = [];
    before(async () => {
      chromium = await launchChromium();
    });
    after(async () => {
      // The browser first, so that its keep-alive connections do not hold the servers open.
      await chromium?.close();
      for (const s of servers) await s.close();
    });

    async function serve(root, outDir) {
      const server = await preview({
        root,
        // The plain page is served from its project root as it is (a static server's job).
        logLevel: root === outDir ? "error" : "warn",
        build: { outDir },
        preview: { host: "127.0.0.1", port: 0, strictPort: false, open: false },
      });
      servers.push({
        close: () => {
          server.httpServer.closeAllConnections?.();
          return new Promise((resolve) => server.httpServer.close(resolve));
        },
      });
      return `http://127.0.0.1:${server.httpServer.address().port}`;
    }

    /** Opens `url`, waits for its #result; with the page's errors and every .wasm it fetched. */

    /**
     * Serves a bundler's output `outDir` with the app's index.html (from `root`) and checks the
     * page: no error, the session checks every host runs, init() required first, and the one
     * `.wasm` it fetched is `wasmFile`. Returns the page's report.
     */
    async function checkBundledPage(root, outDir, wasmFile) {
      await cp(path.join(root, "index.html"), path.join(outDir, "index.html"));
      const base = await serve(outDir, outDir);
      const { text, errors, wasm } = await resultOf(`${base}/index.html`);
      assert.deepEqual(errors, []);
      const body = JSON.parse(text);
      assert.equal(body.ok, true, body.stack ?? body.error);
      assert.equal(body.beforeInit, "ERR_NOT_INITIALIZED");
      assert.deepEqual(body.checks, EXPECTED);
      assert.deepEqual(wasm, [{ path: `/${wasmFile}`, status: 200, type: "application/wasm" }]);
      return body;
    }
    async function resultOf(url) {
      const page = await chromium.newPage();
      const errors = [];
      const wasm = [];
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("response", (r) => {
        if (new URL(r.url()).pathname.endsWith(".wasm")) wasm.push({ path: new URL(r.url()).pathname, status: r.status(), type: r.headers()["content-type"] });
      });
      await page.goto(url);
      await page.waitForFunction(() => document.getElementById("result")?.textContent !== "running", null, { timeout: 20000 });
      const text = await page.locator("#result").textContent();
      await page.close();
      return { text, errors, wasm };
    }

    /** The package's browser .wasm as installed (what every bundler must ship, byte for byte). */
    const installedWasm = () => readFile(path.join(proj, "node_modules/mcp-cancel/pkg/web/mcp_cancel_bg.wasm"));

    test("a Vite build, loaded in headless Chromium", async () => {
      const root = path.join(proj, "vite");
      await build({ root, logLevel: "warn", build: { outDir: "dist", emptyOutDir: true } });
      const base = await serve(root, "dist");
      const { text, errors } = await resultOf(`${base}/`);
      assert.deepEqual(errors, []);
      assert.equal(text, "ok vite");
    });

    test("a webpack 5 build with no configuration (target web), loaded in headless Chromium", async (t) => {
      const root = path.join(proj, "webpack");
      const outDir = path.join(root, "dist");
      const started = performance.now();
      // webpack's defaults (entry ./src, target "web" as the project has no browserslist): no
      // module rules, no experiments. The context and output path only say where the project
      // is (webpack's own default is the working directory); production is webpack-cli's default.
      const compiler = webpack({ context: root, mode: "production", output: { path: outDir } });
      const stats = await new Promise((resolve, reject) => {
        compiler.run((error, result) => compiler.close((closeError) => (error ?? closeError ? reject(error ?? closeError) : resolve(result))));
      });
      const info = stats.toJson({ all: false, errors: true, warnings: true, assets: true, version: true });
      t.diagnostic(`webpack ${info.version}: built in ${Math.round(performance.now() - started)} ms: ${info.assets.map((a) => `${a.name} (${a.size} bytes)`).join(", ")}`);
      assert.deepEqual(info.errors, []);
      assert.deepEqual(info.warnings, []);
      const pkgDir = path.join(proj, "node_modules/mcp-cancel");
      const read = [...stats.compilation.fileDependencies].filter((f) => f.startsWith(pkgDir)).map((f) => path.relative(pkgDir, f));
      assert.ok(read.includes(path.join("js", "browser.js")), `the browser entry was bundled: ${read}`);
      assert.ok(!read.some((f) => /^js[\\/](worker|edge-light|index)\.js$/.test(f)), `no other entry was bundled: ${read}`);
      // The glue's `new URL("mcp_cancel_bg.wasm", import.meta.url)`, emitted as an asset.
      const emitted = info.assets.map((a) => a.name).filter((n) => n.endsWith(".wasm"));
      assert.equal(emitted.length, 1, `one .wasm emitted: ${info.assets.map((a) => a.name)}`);
      assert.ok((await readFile(path.join(outDir, emitted[0]))).equals(await installedWasm()), "the emitted .wasm is the package's");

      await checkBundledPage(root, outDir, emitted[0]);
    });

    test("an esbuild bundle with `--loader:.wasm=file` and the `.wasm` subpath passed to init(), in headless Chromium; with no option, no .wasm", async (t) => {
      const root = path.join(proj, "esbuild");
      const outDir = path.join(root, "dist");
      const started = performance.now();
      // esbuild app.js --bundle --loader:.wasm=file --outdir=dist (its default format for a
      // browser bundle: iife).
      const result = await esbuild.build({
        absWorkingDir: root,
        entryPoints: ["app.js"],
        bundle: true,
        loader: { ".wasm": "file" },
        outdir: outDir,
        metafile: true,
        logLevel: "silent",
      });
      t.diagnostic(`esbuild ${esbuild.version}: built in ${Math.round(performance.now() - started)} ms: ${Object.entries(result.metafile.outputs).map(([f, o]) => `${path.basename(f)} (${o.bytes} bytes)`).join(", ")}`);
      assert.deepEqual(result.errors, []);
      assert.deepEqual(result.warnings, []);
      const inputs = Object.keys(result.metafile.inputs);
      assert.ok(inputs.includes("../node_modules/mcp-cancel/js/browser.js"), `the browser entry was bundled: ${inputs}`);
      const emitted = (await readdir(outDir)).filter((n) => n.endsWith(".wasm"));
      assert.equal(emitted.length, 1, `one .wasm emitted: ${emitted}`);
      assert.ok((await readFile(path.join(outDir, emitted[0]))).equals(await installedWasm()), "the emitted .wasm is the package's");

      const body = await checkBundledPage(root, outDir, emitted[0]);
      assert.equal(body.wasmUrl, `./${emitted[0]}`);

      // With no option but --bundle (and `init()` with no argument): it builds, but esbuild
      // neither emits the .wasm nor keeps `import.meta` in an iife, so init() rejects.
      const bareDir = path.join(root, "no-option");
      const bare = await esbuild.build({ absWorkingDir: root, entryPoints: ["no-option.js"], bundle: true, outfile: path.join(bareDir, "app.js"), logLevel: "silent" });
      assert.deepEqual(bare.errors, []);
      assert.deepEqual((await readdir(bareDir)).filter((n) => n.endsWith(".wasm")), []);
      await cp(path.join(root, "index.html"), path.join(bareDir, "index.html"));
      const bareBase = await serve(bareDir, bareDir);
      const without = await resultOf(`${bareBase}/index.html`);
      assert.deepEqual(without.errors, []);
      const failed = JSON.parse(without.text);
      t.diagnostic(`with no option, init() rejects: ${failed.error}`);
      assert.equal(failed.ok, false);
      assert.match(failed.error, /^TypeError: .*URL/);
      assert.deepEqual(without.wasm, []);
    });

    test("the hosts guide's browser example (examples/browser.html) runs as printed", async () => {
      const base = await serve(proj, proj);
      const { text, errors } = await resultOf(`${base}/browser.html`);
      assert.deepEqual(errors, []);
      assert.equal(text, "notifications/cancelled user pressed Cancel; late result dropped: true");
    });

    test("a plain <script type=module> page with an import map, no bundler", async () => {
      const base = await serve(proj, proj);
      const { text, errors } = await resultOf(`${base}/page/index.html`);
      assert.deepEqual(errors, []);
      assert.equal(text, "ok page");
    });
  });
});

describe("the commands' package (mcp-cancel-cli) beside the library, from their tarballs", { timeout: 180000 }, () => {
  let tmp;
  let proj;
  let cliPacked;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "mcp-cancel-cli-"));
    const { tarball } = await packTarball(tmp);
    let cliTarball;
    ({ packed: cliPacked, tarball: cliTarball } = await packCliTarball(tmp));
    proj = path.join(tmp, "proj");
    await mkdir(proj);
    // Both tarballs in one install: the command's dependency on mcp-cancel is the library's tarball.
    await installTarball(proj, tarball, [cliTarball]);
  });

  after(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test("its tarball holds the commands and nothing else", (t) => {
    const files = cliPacked.files.map((f) => f.path).sort();
    t.diagnostic(`${cliPacked.filename}: ${cliPacked.size} bytes packed, ${files.length} files`);
    assert.deepEqual(files, [...CLI_PACKAGE_FILES].sort());
  });

  test("npx mcp-cancel-cli: --help, bridge --help, conformance --list; the library is the one installed beside it", async () => {
    const npx = (args) => run("npx", ["--no-install", "mcp-cancel-cli", ...args], { cwd: proj });
    const { stdout } = await npx(["--help"]);
    assert.match(stdout, /usage: mcp-cancel <command>/);
    assert.match(stdout, /npx mcp-cancel-cli <command>/);
    assert.match((await npx(["bridge", "--help"])).stdout, /--http <url>/);
    assert.match((await npx(["conformance", "--list"])).stdout, /cancel-in-flight/);
    // Installed, the command is also `mcp-cancel`.
    const alias = await run(path.join(proj, "node_modules/.bin/mcp-cancel"), ["--help"], { cwd: proj });
    assert.match(alias.stdout, /usage: mcp-cancel <command>/);
    // One copy of the library: the command's dependency is the tarball installed beside it.
    const { stdout: tree } = await run("npm", ["ls", "mcp-cancel", "--all", "--parseable"], { cwd: proj });
    assert.equal(tree.split("\n").filter((l) => l.endsWith("/node_modules/mcp-cancel")).length, 1, tree);
  });
});

