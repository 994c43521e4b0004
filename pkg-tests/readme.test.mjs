// The code of the README and the guides (docs/*.md) is files (examples/) or lines of a test: this
// test checks each ```js, ```html and ```nginx block is, byte for byte, the file named under it (or
// each of its lines is in the test named under it), and runs the Node examples against a real
// server (server-everything), as printed. The browser example is opened in headless Chromium by
// packaging.test.mjs. The hosts guide's table must name the versions of the hosts and bundlers the
// tests pin.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { startDemoWeb } from "../demo/web.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const run = promisify(execFile);

/** The README and every guide in docs/, as paths from the root. */
async function documents() {
  const guides = (await readdir(path.join(root, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
  return ["README.md", ...guides.sort()];
}

/**
 * Every ```js, ```html and ```nginx block of the README and the guides with the file its note names
 * (or none): an example file (`<!-- the block above is examples/x.mjs; … -->`, the same bytes) or a
 * test or example (`<!-- the lines above are in pkg-tests/x.test.mjs … -->`, each line of the block in
 * it): a one-line recipe of the README is a line of the example or test that runs it.
 */
async function jsBlocks() {
  const blocks = [];
  const fence = /```(?:js|html|nginx)\n([\s\S]*?)```\n\n(?:<!-- the block above is (examples\/[\w.-]+);[^\n]*-->|<!-- the lines above are in ((?:pkg-tests|examples)\/[\w./-]+)[^\n]*-->)?/g;
  for (const doc of await documents()) {
    const text = await readFile(path.join(root, doc), "utf8");
    for (const match of text.matchAll(fence)) blocks.push({ doc, code: match[1], file: match[2], test: match[3] });
  }
  return blocks;
}

/** Runs an example with node, server-everything's bin on PATH; resolves with its stdout. */
async function runExample(file) {
  const env = { ...process.env, PATH: `${path.join(root, "node_modules/.bin")}${path.delimiter}${process.env.PATH}` };
  const { stdout } = await run(process.execPath, [path.join(root, file)], { cwd: root, env, timeout: 60_000 });
  return stdout;
}

describe("README examples", () => {
  test("every ```js, ```html and ```nginx block of the README and docs/ is an example file or lines of a test", async () => {
    const blocks = await jsBlocks();
    assert.ok(blocks.length >= 3, "the README and the guides have their examples");
    for (const { doc, code, file, test } of blocks) {
      assert.ok(file ?? test, `a code block of ${doc} names no example file or test:\n${code.slice(0, 200)}`);
      if (file !== undefined) {
        assert.equal(code, await readFile(path.join(root, file), "utf8"), `${doc}: block differs from ${file}`);
        continue;
      }
      // A recipe whose lines a test runs: each line of the block is a line of the test (indentation aside).
      const lines = new Set((await readFile(path.join(root, test), "utf8")).split("\n").map((l) => l.trim()));
      for (const line of code.split("\n").map((l) => l.trim()).filter(Boolean)) {
        assert.ok(lines.has(line), `${doc}: recipe line not in ${test}: ${line}`);
      }
    }
  });

  test("the hosts guide's table names the versions the tests run: the exact pins of package.json", async () => {
    const guide = await readFile(path.join(root, "docs/hosts.md"), "utf8");
    const table = guide.slice(0, guide.indexOf("\n## ", guide.indexOf("|")));
    const { devDependencies } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8"));
    for (const [name, label] of [["vite", "Vite"], ["webpack", "webpack"], ["esbuild", "esbuild"], ["workerd", "workerd"], ["deno", "Deno"], ["bun", "Bun"]]) {
      assert.match(devDependencies[name], /^\d+\.\d+\.\d+$/, `${name} is pinned exactly`);
      assert.ok(table.includes(`${label} ${devDependencies[name]}`), `the hosts guide's table says ${label} ${devDependencies[name]}`);
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

  test("the SDK 2.x Streamable HTTP example runs as printed against a URL: one cancel for the call, the call rejects", async (t) => {
    const demo = await startDemoWeb({ port: 0 }); // server-everything in streamableHttp mode on a free port, behind a wire tap
    t.after(() => demo.close());
    const { stdout: out } = await run(process.execPath, [path.join(root, "examples/sdk2-http.mjs"), demo.serverUrl], { cwd: root, timeout: 60_000 });
    assert.match(out, /\[mcp-cancel\] cancel-sent 1/);
    assert.equal(out.match(/cancel-sent/g).length, 1);
    assert.match(out, /call rejected: user pressed stop/);
    // What reached the server: one notifications/cancelled, for the tool call's request id.
    const posted = demo.wire.filter((r) => r.dir === "out").map((r) => r.message);
    const callId = posted.find((m) => m.method === "tools/call").id;
    const cancels = posted.filter((m) => m.method === "notifications/cancelled").map((m) => m.params);
    assert.deepEqual(cancels, [{ requestId: callId, reason: "user pressed stop" }]);
  });

  test("the relay example runs as printed: two clients with the same ids, one cancel, for alice's request only", async () => {
    const out = await runExample("examples/relay.mjs");
    assert.match(out, /\[relay\] upstream cancel of request \d+/);
    assert.equal(out.match(/\[relay\] upstream cancel/g).length, 1);
    assert.match(out, /alice: cancelled bob: done/);
  });

  test("the inbound example runs as printed: the peer's cancel aborts the handler, its response is suppressed", async () => {
    const out = await runExample("examples/inbound.mjs");
    assert.match(out, /\[mcp-cancel\] cancel-received 1/);
    assert.match(out, /handler for slow: stopped \(/);
    assert.match(out, /response to request 1 suppressed/);
    assert.match(out, /peer's call rejected: .*user pressed stop/);
    assert.doesNotMatch(out, /handler for slow: finished/);
  });

  test("the low-level example runs as printed: the request's own signal aborts, nothing stays in flight", async () => {
    const out = await runExample("examples/low-level.mjs");
    assert.match(out, /\[mcp-cancel\] cancel-sent/);
    assert.match(out, /request 1 aborted: user pressed stop/);
    assert.match(out, /late-progress-dropped/);
    assert.match(out, /in flight: 0 remembered as cancelled: 1/);
  });
});
