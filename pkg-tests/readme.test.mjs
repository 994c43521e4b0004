// The README's code examples are files (examples/): this test checks each ```js and ```html
// block of the README is, byte for byte, the file named under it, and runs the Node examples
// against a real server (server-everything over stdio), as printed. The browser example is
// opened in headless Chromium by packaging.test.mjs.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

/** Every ```js and ```html block of the README with the example file its note names (or none). */
async function jsBlocks() {
  const readme = await readFile(path.join(root, "README.md"), "utf8");
  const blocks = [];
  const fence = /```(?:js|html)\n([\s\S]*?)```\n\n(<!-- the block above is (examples\/[\w.-]+);[^\n]*-->)?/g;
  for (const match of readme.matchAll(fence)) blocks.push({ code: match[1], file: match[3] });
  return blocks;
}

/** Runs an example with node, server-everything's bin on PATH; resolves with its stdout. */
async function runExample(file) {
  const env = { ...process.env, PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH}` };
  const { stdout } = await run(process.execPath, [path.join(root, file)], { cwd: root, env, timeout: 60_000 });
  return stdout;
}

describe("README examples", () => {
  test("every ```js and ```html block of the README is an example file, byte for byte", async () => {
    const blocks = await jsBlocks();
    assert.ok(blocks.length >= 3, "the README has its examples");
    for (const { code, file } of blocks) {
      assert.ok(file, `a \`\`\`js block of the README names no example file:\n${code.slice(0, 200)}`);
      assert.equal(code, await readFile(path.join(root, file), "utf8"), `README block differs from ${file}`);
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

  test("the low-level example runs as printed: the request's own signal aborts, nothing stays in flight", async () => {
    const out = await runExample("examples/low-level.mjs");
    assert.match(out, /\[mcp-cancel\] cancel-sent/);
    assert.match(out, /request 1 aborted: user pressed stop/);
    assert.match(out, /late-progress-dropped/);
    assert.match(out, /in flight: 0 remembered as cancelled: 1/);
  });
});
