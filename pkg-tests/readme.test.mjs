// The README's code examples are files (examples/): this test checks each ```js, ```html and
// ```nginx block of the README is, byte for byte, the file named under it, and runs the Node examples
// against a real server (server-everything over stdio), as printed. The browser example is
// opened in headless Chromium by packaging.test.mjs. The hosts table of the first screen must
// name the versions of the hosts and bundlers the tests pin.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

/**
 * Every ```js, ```html and ```nginx block of the README with the file its note names (or none): an
 * example file (`<!-- the block above is examples/x.mjs; … -->`, the same bytes) or a test
 * (`<!-- the lines above are in pkg-tests/x.test.mjs … -->`, each line of the block in it).
 */
async function jsBlocks() {
  const readme = await readFile(path.join(root, "README.md"), "utf8");
  const blocks = [];
  const fence = /```(?:js|html|nginx)\n([\s\S]*?)```\n\n(?:<!-- the block above is (examples\/[\w.-]+);[^\n]*-->|<!-- the lines above are in (pkg-tests\/[\w./-]+)[^\n]*-->)?/g;
  for (const match of readme.matchAll(fence)) blocks.push({ code: match[1], file: match[2], test: match[3] });
  return blocks;
}

/** Runs an example with node, server-everything's bin on PATH; resolves with its stdout. */
async function runExample(file) {
  const env = { ...process.env, PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH}` };
  const { stdout } = await run(process.execPath, [path.join(root, file)], { cwd: root, env, timeout: 60_000 });
  return stdout;
}

describe("README examples", () => {
  test("every ```js, ```html and ```nginx block of the README is an example file, byte for byte", async () => {
    const blocks = await jsBlocks();
    assert.ok(blocks.length >= 3, "the README has its examples");
    for (const { code, file, test } of blocks) {
      assert.ok(file ?? test, `a \`\`\`js block of the README names no example file or test:\n${code.slice(0, 200)}`);
      if (file !== undefined) {
        assert.equal(code, await readFile(path.join(root, file), "utf8"), `README block differs from ${file}`);
        continue;
      }
      // A recipe whose lines a test runs: each line of the block is a line of the test (indentation aside).
      const lines = new Set((await readFile(path.join(root, test), "utf8")).split("\n").map((l) => l.trim()));
      for (const line of code.split("\n").map((l) => l.trim()).filter(Boolean)) {
        assert.ok(lines.has(line), `README recipe line not in ${test}: ${line}`);
      }
    }
  });

  test("the hosts table (first screen) names the versions the tests run: the exact pins of package.json", async () => {
    const readme = await readFile(path.join(root, "README.md"), "utf8");
    const table = readme.slice(0, readme.indexOf("## Install"));
    const { devDependencies } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"));
    for (const [name, label] of [["vite", "Vite"], ["webpack", "webpack"], ["esbuild", "esbuild"], ["workerd", "workerd"], ["deno", "Deno"], ["bun", "Bun"]]) {
      assert.match(devDependencies[name], /^\d+\.\d+\.\d+$/, `${name} is pinned exactly`);
      assert.ok(table.includes(`${label} ${devDependencies[name]}`), `the README's hosts table says ${label} ${devDependencies[name]}`);
    }
  });

  test("the Node quick start runs as printed: one cancel, the call rejects, late progress is dropped", async () => {
    const out = await runExample("examples/quickstart.mjs");
    assert.match(out, /\[mcp-cancel\] cancel-sent 1/);
    assert.match(out, /call rejected: .*user pressed stop/);
    assert.match(out, /\[mcp-cancel\] late-progress-dropped 1/);
  });

  test("the AI SDK example runs as printed: one cancel for the tool call, the call rejects", async () => {
    const out = await runExample("examples/ai-sdk.mjs");
    assert.match(out, /\[mcp-cancel\] cancel-sent 2/);
    assert.match(out, /tool call rejected: Request was aborted/);
  });

  test("the relay example runs as printed: two clients with the same ids, one cancel, for alice's request only", async () => {
    const out = await runExample("examples/relay.mjs");
    assert.match(out, /\[relay\] upstream cancel of request \d+/);
    assert.equal(out.match(/\[relay\] upstream cancel/g).length, 1);
    assert.match(out, /alice: cancelled bob: done/);
  });

  test("the low-level example runs as printed: the request's own signal aborts, nothing stays in flight", async () => {
    const out = await runExample("examples/low-level.mjs");
    assert.match(out, /\[mcp-cancel\] cancel-sent/);
    assert.match(out, /request 1 aborted: user pressed stop/);
    assert.match(out, /late-progress-dropped/);
    assert.match(out, /in flight: 0 remembered as cancelled: 1/);
  });
});
