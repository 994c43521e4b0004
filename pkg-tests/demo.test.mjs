// `npm run demo`'s program, run as a user would, against the real server-everything.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);
const demo = new URL("../demo/demo.mjs", import.meta.url).pathname;

describe("demo", { timeout: 60000 }, () => {
  test("cancels server-everything's long-running tool with zero late messages reaching the SDK", async () => {
    const { stdout } = await run(process.execPath, [demo, "--args", '{"duration": 2, "steps": 8}', "--cancel-after", "700", "--settle", "2500"], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    assert.match(stdout, /→ server {2}notifications\/cancelled requestId=1 reason="Request cancelled"/);
    assert.match(stdout, /dropped by mcp-cancel \(late\)/);
    assert.match(stdout, /errors the SDK surfaced \(client\.onerror\): +SDK alone [1-9]\d*, with mcp-cancel 0/);
    assert.match(stdout, /With mcp-cancel: 0 late messages reached the SDK client, 0 errors\./);
  });

  test("--scenario task: one deferred tasks/cancel, the task ends cancelled", async () => {
    const { stdout } = await run(process.execPath, [demo, "--scenario", "task"], { env: { ...process.env, NO_COLOR: "1" } });
    assert.match(stdout, /tasks\/cancel sent: +SDK alone 0, with mcp-cancel 1/);
    assert.match(stdout, /notifications\/cancelled for the task request: SDK alone 1, with mcp-cancel 0/);
    // SDK alone: the task runs on, or — when server-everything takes the forbidden cancel
    // before it answered — its id never reaches the client (a race of the server's).
    assert.match(stdout, /the task's status afterwards: +SDK alone (working|completed|never known \(no CreateTaskResult came\)), with mcp-cancel cancelled/);
  });

  test("a server that cannot start: non-zero exit and a clear message", async () => {
    await assert.rejects(run(process.execPath, [demo, "--server", "/nonexistent/mcp-server --stdio"]), (error) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /could not start or initialize the MCP server \/nonexistent\/mcp-server --stdio/);
      assert.match(error.stderr, /not found|No such file/);
      return true;
    });
  });

  test("bad flags: non-zero exit with usage", async () => {
    await assert.rejects(run(process.execPath, [demo, "--args", "{nope"]), (error) => {
      assert.equal(error.code, 2);
      assert.match(error.stderr, /--args is not valid JSON/);
      return true;
    });
  });
});
