// A release a user can trust, checked on the packed tarball: one version
// in every file that names it (the commands' package, cli/, too); publint and "are the types wrong" (attw) clean; and
// `npm publish --dry-run` lists exactly the intended files (pkg-tests/package-files.mjs),
// with the tarball's size reported. About 5 s: nothing here installs or builds.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { CLI_PACKAGE_FILES, PACKAGE_FILES } from "./package-files.mjs";

const exec = promisify(execFile);
const repo = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => path.join(repo, "node_modules/.bin", name);
const text = (file) => readFile(path.join(repo, file), "utf8");
// No colours in the output the tests read.
const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
const run = (cmd, args, cwd = repo) => exec(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
const cliDir = path.join(repo, "cli");

/** The `version = "…"` of the `[package]` table of a Cargo.toml. */
function cargoTomlVersion(toml) {
  const table = toml.split(/^\[/m).find((t) => t.startsWith("package]"));
  return table?.match(/^version\s*=\s*"([^"]+)"/m)?.[1];
}

/** The version of the package `name` in a Cargo.lock. */
function cargoLockVersion(lock, name) {
  const entry = lock.split("[[package]]").find((e) => e.includes(`\nname = "${name}"\n`));
  return entry?.match(/^version = "([^"]+)"/m)?.[1];
}

/** The newest release heading of CHANGELOG.md (`## [1.0.0] — …`; an `[Unreleased]` section is not one). */
function changelogVersion(md) {
  return md.match(/^## \[(\d+\.\d+\.\d+[^\]]*)\]/m)?.[1];
}

describe("the release", { timeout: 60000 }, () => {
  let tmp;
  let packed; // npm pack --json's entry for the tarball
  let tarball;
  let cliPacked; // the same for the commands' package (cli/, mcp-cancel-cli)
  let cliTarball;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "mcp-cancel-release-"));
    const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp]);
    [packed] = JSON.parse(stdout);
    tarball = path.join(tmp, packed.filename);
    const cli = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], cliDir);
    [cliPacked] = JSON.parse(cli.stdout);
    cliTarball = path.join(tmp, cliPacked.filename);
  });

  after(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test("one version: package.json, package-lock.json, Cargo.toml, Cargo.lock, fuzz/Cargo.lock, CHANGELOG.md and the tarball agree", async (t) => {
    const pkg = JSON.parse(await text("package.json"));
    const lock = JSON.parse(await text("package-lock.json"));
    const versions = {
      "package.json": pkg.version,
      "package-lock.json version": lock.version,
      'package-lock.json packages[""].version': lock.packages?.[""]?.version,
      "Cargo.toml [package]": cargoTomlVersion(await text("Cargo.toml")),
      "Cargo.lock mcp-cancel": cargoLockVersion(await text("Cargo.lock"), "mcp-cancel"),
      "fuzz/Cargo.lock mcp-cancel": cargoLockVersion(await text("fuzz/Cargo.lock"), "mcp-cancel"),
      "CHANGELOG.md newest release": changelogVersion(await text("CHANGELOG.md")),
      "the packed tarball": packed.version,
      "cli/package.json (mcp-cancel-cli)": JSON.parse(await text("cli/package.json")).version,
      "cli/package.json's dependency on mcp-cancel": JSON.parse(await text("cli/package.json")).dependencies?.["mcp-cancel"],
      "the packed mcp-cancel-cli tarball": cliPacked.version,
    };
    const table = Object.entries(versions).map(([where, v]) => `  ${where}: ${v}`).join("\n");
    for (const [where, v] of Object.entries(versions)) assert.match(String(v), /^\d+\.\d+\.\d+(-[\w.]+)?$/, `${where} names no version:\n${table}`);
    assert.equal(new Set(Object.values(versions)).size, 1, `the versions disagree:\n${table}`);
    t.diagnostic(`version ${pkg.version} in ${Object.keys(versions).length} places`);
  });

  test("publint: no error and no warning on the commands' tarball (mcp-cancel-cli)", async (t) => {
    const { stdout } = await run(bin("publint"), ["run", cliTarball, "--strict"]).catch((error) => {
      assert.fail(`publint failed (exit ${error.code}):\n${error.stdout}${error.stderr}`);
    });
    assert.doesNotMatch(stdout, /^(Errors|Warnings|Suggestions):/m, stdout);
    t.diagnostic(stdout.trim());
  });

  test("publint: no error and no warning on the tarball", async (t) => {
    // --strict: a warning fails like an error (non-zero exit).
    const { stdout } = await run(bin("publint"), ["run", tarball, "--strict"]).catch((error) => {
      assert.fail(`publint failed (exit ${error.code}):\n${error.stdout}${error.stderr}`);
    });
    assert.doesNotMatch(stdout, /^(Errors|Warnings):/m, stdout);
    // Suggestions are not problems, but each is read and either acted on or listed here.
    const suggestions = stdout.split(/^Suggestions:\n/m)[1]?.split("\n").filter((l) => /^\d+\. /.test(l)) ?? [];
    const accepted = [
      // The top-level "browser" field duplicates exports["."].browser for tools that read no
      // "exports" (webpack 4, browserify); dropping it "may be a breaking change" (publint).
      /^\d+\. pkg\.browser with a string value can be refactored to use pkg\.exports and the "browser" condition/,
    ];
    for (const s of suggestions) t.diagnostic(`publint suggestion (accepted): ${s}`);
    const unexpected = suggestions.filter((s) => !accepted.some((re) => re.test(s)));
    assert.deepEqual(unexpected, [], `publint has a new suggestion:\n${stdout}`);
  });

  test("are the types wrong (attw): no problem in any resolution, node10 included", async (t) => {
    // The default ("strict") profile checks node10, node16 from CJS and ESM, and bundler:
    // node10 resolves through the top-level "types" and "main", so no profile is needed.
    const result = await run(bin("attw"), [tarball, "--format", "json"]).catch((error) => error);
    const report = JSON.parse(result.stdout);
    const problems = report.analysis?.problems ?? [];
    assert.deepEqual(problems, [], `attw found problems:\n${JSON.stringify(problems, null, 2)}`);
    assert.equal(result.code ?? 0, 0, `attw exited ${result.code}:\n${result.stderr}`);
    assert.ok(report.analysis.entrypoints["."], "attw checked the package's main entry point");
    // Every entry point resolves to a typed file in every resolution attw checks.
    for (const [sub, entry] of Object.entries(report.analysis.entrypoints)) {
      for (const [kind, r] of Object.entries(entry.resolutions)) {
        assert.ok(r.resolution?.fileName, `${sub} does not resolve under ${kind}`);
        t.diagnostic(`attw ${sub} ${kind}: ${r.resolution.fileName.replace("/node_modules/mcp-cancel/", "")}`);
      }
    }
  });

  test("npm publish --dry-run lists exactly the intended files; the tarball's size", async (t) => {
    // --fetch-retries=0: the dry run asks the registry who is logged in; offline, npm's
    // retries would take a minute before it goes on without an answer.
    const { stdout } = await run("npm", ["publish", "--dry-run", "--json", "--ignore-scripts", "--fetch-retries=0"]);
    const json = JSON.parse(stdout);
    const pub = json["mcp-cancel"] ?? json; // npm 11 keys the result by package name
    assert.equal(pub.name, "mcp-cancel");
    const files = pub.files.map((f) => f.path).sort();
    const missing = PACKAGE_FILES.filter((f) => !files.includes(f));
    const extra = files.filter((f) => !PACKAGE_FILES.includes(f));
    assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, "the published files are not pkg-tests/package-files.mjs's list");
    assert.deepEqual(files, [...PACKAGE_FILES].sort());
    // The same tarball as npm pack's.
    assert.equal(pub.integrity, packed.integrity);
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    t.diagnostic(`${pub.filename}: ${pub.size} bytes packed (${kib(pub.size)}), ${pub.unpackedSize} bytes unpacked (${kib(pub.unpackedSize)}), ${files.length} files`);
    for (const f of [...pub.files].sort((a, b) => b.size - a.size).slice(0, 5)) t.diagnostic(`  ${f.path}: ${f.size} bytes`);
  });

  test("npm publish --dry-run in cli/ lists exactly the commands' files", async (t) => {
    const { stdout } = await run("npm", ["publish", "--dry-run", "--json", "--ignore-scripts", "--fetch-retries=0"], cliDir);
    const json = JSON.parse(stdout);
    const pub = json["mcp-cancel-cli"] ?? json;
    assert.equal(pub.name, "mcp-cancel-cli");
    assert.deepEqual(pub.files.map((f) => f.path).sort(), [...CLI_PACKAGE_FILES].sort());
    assert.equal(pub.integrity, cliPacked.integrity);
    t.diagnostic(`${pub.filename}: ${pub.size} bytes packed, ${pub.unpackedSize} bytes unpacked, ${pub.files.length} files`);
  });
});
