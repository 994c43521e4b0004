// mcp-cancel under Deno and Bun, from the packed tarball installed in a tiny project (with the
// MCP SDK, as a user installs it): hosts/host-check.mjs imports the package as their users
// do, runs the session checks, and drives the SDK Client through guardTransport against
// server-everything over stdio with one abort. The runtimes are dev dependencies (npm `deno`,
// `bun`: their binaries ship in the per-platform packages @deno/<platform> and
// @oven/bun-<platform>, which npm installs as optional dependencies).
//
// Flags: Bun none. Deno `--allow-read` (the Node entry reads its .wasm with fs), and for the
// stdio client `--allow-env --allow-run` (the SDK reads the environment and spawns the server).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { EVERYTHING } from "../demo/everything.mjs";
import { EXPECTED } from "./hosts/session-checks.mjs";
import { installTarball, packTarball, repo, sameAsRepo } from "./tarball.mjs";

const exec = promisify(execFile);
const require = createRequire(import.meta.url);

/** `<binary> --version`'s first line, or undefined when it does not run. */
async function versionOf(binary) {
  try {
    const { stdout } = await exec(binary, ["--version"], { timeout: 20000 });
    return stdout.split("\n")[0].trim();
  } catch {
    return undefined;
  }
}

/**
 * The runtime's binary. npm's `deno` and `bun` put it in place with a postinstall script
 * (scripts/setup.sh's `npm install` runs it); after `npm ci --ignore-scripts` it is still in
 * the platform package, which is where this looks next.
 */
async function binaryOf(runtime) {
  const candidates = [];
  if (runtime === "deno") {
    candidates.push(path.join(repo, "node_modules/deno/deno"));
    try {
      candidates.push(require("deno/install_api.cjs").runInstall()); // finds @deno/<target>/deno
    } catch {}
  } else {
    candidates.push(path.join(repo, "node_modules/bun/bin/bun.exe"));
    const arch = { x64: "x64", arm64: "aarch64" }[process.arch];
    const musl = process.report?.getReport?.().header?.glibcVersionRuntime === undefined && process.platform === "linux";
    for (const variant of musl ? ["-musl", "-musl-baseline"] : ["", "-baseline"]) {
      candidates.push(path.join(repo, `node_modules/@oven/bun-${process.platform}-${arch}${variant}/bin/bun`));
    }
  }
  for (const binary of candidates) {
    if (!existsSync(binary)) continue;
    const version = await versionOf(binary);
    if (version !== undefined) return { binary, version };
  }
  assert.fail(`no runnable ${runtime} binary (tried ${candidates.join(", ")}): run scripts/setup.sh (npm install)`);
}

const RUNTIMES = {
  deno: {
    pinned: () => JSON.parse(readFileSync(path.join(repo, "node_modules/deno/package.json"), "utf8")).version,
    args: (script) => ["run", "--allow-read", "--allow-env", "--allow-run", script],
  },
  bun: {
    pinned: () => JSON.parse(readFileSync(path.join(repo, "node_modules/bun/package.json"), "utf8")).version,
    args: (script) => [script],
  },
};

describe("Deno and Bun (from the packed tarball)", { timeout: 90000 }, () => {
  let tmp;
  let proj;
  const notes = [];

  before(async () => {
    const started = performance.now();
    tmp = await mkdtemp(path.join(os.tmpdir(), "mcp-cancel-hosts-"));
    const { tarball } = await packTarball(tmp);
    proj = path.join(tmp, "proj");
    await cp(path.join(repo, "pkg-tests/hosts"), path.join(proj, "hosts"), { recursive: true });
    await cp(path.join(repo, "demo/wiretap.mjs"), path.join(proj, "hosts/wiretap.mjs"));
    await installTarball(proj, tarball, [sameAsRepo("@modelcontextprotocol/sdk")]);
    notes.push(`pack + install ${Math.round(performance.now() - started)} ms`);
  });

  after(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  for (const [runtime, how] of Object.entries(RUNTIMES)) {
    test(`${runtime}: import, the session checks, and the SDK client against server-everything over stdio with one abort`, async (t) => {
      for (const note of notes.splice(0)) t.diagnostic(note);
      const { binary, version } = await binaryOf(runtime);
      assert.match(version, new RegExp(how.pinned().replaceAll(".", "\\.")), `${runtime} is the pinned version`);
      const args = [...how.args("hosts/host-check.mjs"), process.execPath, EVERYTHING];
      const started = performance.now();
      const { stdout, stderr } = await exec(binary, args, { cwd: proj, timeout: 45000, env: { ...process.env, NO_COLOR: "1" } }).catch((error) => {
        assert.fail(`${runtime} ${args.join(" ")} failed (${error.code ?? error.signal}):\n${error.stdout}\n${error.stderr}`);
      });
      t.diagnostic(`${version} (${path.relative(repo, binary)}): ${runtime} ${how.args("…").join(" ")} took ${Math.round(performance.now() - started)} ms`);
      const result = JSON.parse(stdout.trim().split("\n").at(-1));
      if (stderr.trim()) t.diagnostic(`stderr: ${stderr.trim()}`);

      assert.deepEqual(result.exports, ["CancellationSession", "InvalidArgumentError", "McpCancelError", "UsageError", "createRelay", "guardTransport", "init"]);
      assert.deepEqual(result.checks, EXPECTED);

      // As pkg-tests/server-everything.test.mjs asserts under Node: one cancel on the wire,
      // the late progress dropped (and none reached the caller), no response, no onerror.
      const { sdk } = result;
      assert.equal(sdk.outcome.settled, "rejected");
      assert.deepEqual(sdk.cancels, [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: sdk.callId, reason: "Request cancelled" } }]);
      assert.ok(sdk.lateProgressOnWire >= 3, `late progress arrived on the wire (${sdk.lateProgressOnWire})`);
      assert.equal(sdk.lateProgressDropped, sdk.lateProgressOnWire);
      assert.equal(sdk.progressAfter, sdk.progressAtAbort, "no progress reached the caller after the abort");
      assert.equal(sdk.responsesToCall, 0);
      assert.deepEqual(sdk.errors, [], "client.onerror stayed silent");
    });
  }
});
