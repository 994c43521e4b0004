// Browser end-to-end: the www/ page in headless Chromium, served by
// demo/web.mjs, against server-everything over Streamable HTTP (and, for the
// 2026-07-28 stream close, an SDK 2.x server). What the server got is read from the demo's
// wire tap, what the user saw from the page. Screenshots go to pkg-tests/artifacts/.
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import cors from "cors";
import * as z from "zod/v4";

import { isCancel, isProgress } from "../demo/wiretap.mjs";
import { startDemoWeb } from "../demo/web.mjs";
import { card, connect, eventually, launchChromium, openPage, recordTransitions, runCall, screenshot, transitions } from "./browser/harness.mjs";

const LONG = "trigger-long-running-operation";
const REASON = "User pressed Cancel"; // the page's default reason

/** The wire records of one call: the page's messages out, and the server's progress/response in. */
function callWire(wire, id) {
  const records = wire.filter(
    ({ message: m }) => m?.id === id || m?.params?.requestId === id || m?.params?.progressToken === id,
  );
  return {
    records,
    cancels: records.filter((r) => r.dir === "out" && isCancel(r.message)),
    progress: records.filter((r) => r.dir === "in" && isProgress(r.message)),
    responses: records.filter((r) => r.dir === "in" && r.message.method === undefined),
  };
}

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe("www/ against server-everything (Streamable HTTP, 2025-11-25)", { timeout: 90_000 }, () => {
  let demo;
  let tab;
  before(async () => {
    demo = await startDemoWeb({ port: 0 });
    tab = await openPage(browser, demo.pageUrl);
    const status = await connect(tab.page);
    assert.match(status, /Connected to .*protocol 2025-11-25.*notifications\/cancelled/);
    await recordTransitions(tab.page);
  });
  after(async () => {
    await tab?.close();
    await demo?.close();
  });

  test("Cancel: cancelling… then cancelled; the server got one notifications/cancelled; the call's stream closed, nothing late reached the app", async () => {
    const { page } = tab;
    const steps = 8;
    const id = await runCall(page, LONG, { duration: 4, steps });
    const call = card(page, id);
    await page.waitForFunction((id) => document.querySelector(`li.call[data-request-id="${id}"] progress`).value >= 2, id);
    assert.equal((await call.read()).state, "running");
    assert.equal((await call.read()).cancelLabel, `Cancel request ${id} (${LONG})`);
    await screenshot(page, "browser-1-running");

    // The browser's side of the wire: which requests to the MCP server the page gave up on.
    const aborted = [];
    page.on("requestfailed", (request) => {
      if (request.url() === demo.serverUrl) aborted.push({ body: request.postData(), error: request.failure()?.errorText });
    });
    // Hold the cancel POST for a moment on its way out, so "cancelling…" can be seen (and
    // photographed) before the server's answer turns it into "cancelled".
    await page.route(demo.serverUrl, async (route) => {
      if (route.request().postData()?.includes('"notifications/cancelled"')) await sleep(1000);
      await route.continue();
    });
    await call.cancel();
    await call.waitFor("cancelling", 500);
    const cancelling = await call.read();
    assert.match(cancelling.status, /^cancelling…/);
    await screenshot(page, "browser-2-cancelling");
    await call.waitFor("cancelled", 5000);
    await page.unrouteAll();

    // (a) on the wire: one notifications/cancelled for this request, with the page's reason.
    const wire = callWire(demo.wire, id);
    assert.deepEqual(
      wire.cancels.map((r) => r.message.params),
      [{ requestId: id, reason: REASON }],
      "exactly one cancel reached the server",
    );
    // The guard over the SDK's Streamable HTTP transport (which has a stream per request) also
    // closes the call's response stream when it cancels, on 2025-11-25 too: the page stops
    // reading the server's progress for this call, which server-everything goes on sending.
    const closed = aborted.filter(({ body }) => body?.includes('"tools/call"') && JSON.parse(body).id === id);
    assert.equal(closed.length, 1, "the page closed the call's response stream");
    assert.match(closed[0].error, /ERR_ABORTED/);

    // (c) the page: nothing of this call reached the app after Cancel. Whatever late message
    // still came in on the stream before it closed was dropped by mcp-cancel, and counted.
    await sleep(1500); // two more of the server's progress steps (500 ms each)
    const shown = cancelling.progress; // the bar when Cancel was pressed
    const final = await call.read();
    const { progress, responses } = callWire(demo.wire, id);
    const late = progress.filter((r) => r.at > wire.cancels[0].at);
    assert.ok(final.dropped <= late.length, "no more dropped than came in after the cancel");
    assert.equal(final.afterCancel, 0, "no message reached the app after Cancel");
    assert.equal(final.progress, shown, "the progress bar did not move after Cancel");
    assert.equal(final.result, undefined, "no result shown");
    assert.deepEqual(responses, [], "the server sent no result after the cancel");

    // (b) the states the user saw, in order, and the final text.
    assert.deepEqual(await transitions(page, id), ["running", "cancelling…", "cancelled"]);
    assert.match(final.status, /^cancelled — reason: “User pressed Cancel”; the server accepted notifications\/cancelled;/);

    // The event log shows what the session's onEvent reported.
    const log = await page.locator("#event-log li").allTextContents();
    assert.ok(log.some((line) => line.includes("cancel-sent") && line.includes(`request ${id} `) && line.includes("via: notification")));
    assert.equal(log.filter((line) => line.includes("late-progress-dropped") && line.includes(`request ${id} `)).length, final.dropped);
    await page.locator("#event-log").scrollIntoViewIfNeeded();
    await screenshot(page, "browser-3-cancelled");
    assert.equal(await page.isHidden("#problem"), true, "no problem shown on the page");
    assert.deepEqual(tab.problems, []);
  });

  test("two calls at once: cancel one, the other completes", async () => {
    const { page } = tab;
    await page.click("#clear-calls"); // the first test's call is finished: off the list
    assert.equal(await page.locator("li.call").count(), 0);
    const a = await runCall(page, LONG, { duration: 2, steps: 4 });
    const b = await runCall(page, LONG, { duration: 6, steps: 6 });
    assert.notEqual(a, b);
    await page.waitForFunction(
      (ids) => ids.every((id) => document.querySelector(`li.call[data-request-id="${id}"] progress`).value >= 1),
      [a, b],
    );
    await card(page, b).cancel();
    await card(page, b).waitFor("cancelled", 5000);
    await card(page, a).waitFor("completed", 10_000);
    const done = await card(page, a).read();
    assert.match(done.result, /Long running operation completed\. Duration: 2 seconds, Steps: 4\./);
    assert.equal(done.progress, 4);
    assert.equal(done.dropped, 0);
    const cancelled = await card(page, b).read();
    assert.equal(cancelled.afterCancel, 0);
    assert.deepEqual(await transitions(page, a), ["running", "completed"]);
    assert.deepEqual(await transitions(page, b), ["running", "cancelling…", "cancelled"]);

    // On the wire: one cancel, for b; a's result came back.
    assert.deepEqual(callWire(demo.wire, a).cancels, []);
    assert.deepEqual(callWire(demo.wire, b).cancels.map((r) => r.message.params.requestId), [b]);
    assert.equal(callWire(demo.wire, a).responses.length, 1);
    assert.equal(callWire(demo.wire, a).responses[0].message.result?.isError, undefined);
    await card(page, a).el.scrollIntoViewIfNeeded();
    await screenshot(page, "browser-4-two-calls");
    assert.deepEqual(tab.problems, []);
  });

  test("a tool error is shown on its card", async () => {
    const { page } = tab;
    const id = await runCall(page, "echo", {}); // `message` is required
    await card(page, id).waitFor("error", 5000);
    const shown = await card(page, id).read();
    assert.match(shown.status, /^error — the tool reported an error/);
    assert.match(shown.result, /message/, "the server's own words say what is wrong");
  });
});

describe("www/ against a 2026-07-28 server (SDK 2.x): Cancel closes the request's stream", { timeout: 60_000 }, () => {
  let server;
  let demo;
  let tab;
  const seen = { aborted: [] };
  before(async () => {
    server = await startSdk2Server(seen);
    demo = await startDemoWeb({ port: 0, upstream: server.url });
    tab = await openPage(browser, demo.pageUrl);
    assert.match(await connect(tab.page), /protocol 2026-07-28.*closes the request's response stream/);
    await recordTransitions(tab.page);
  });
  after(async () => {
    await tab?.close();
    await demo?.close();
    await server?.close();
  });

  test("no notification is sent; the server sees its request end", async () => {
    const { page } = tab;
    const id = await runCall(page, "slow", { steps: 40 });
    const call = card(page, id);
    await page.waitForFunction((id) => document.querySelector(`li.call[data-request-id="${id}"] progress`).value >= 2, id);
    await call.cancel();
    await call.waitFor("cancelled", 5000);
    const at = await call.read();
    assert.match(at.status, /^cancelled — reason: “User pressed Cancel” \(not sent: closing the response stream is the whole cancel in 2026-07-28\)\./);
    await eventually(() => seen.aborted.length === 1, 5000, "the server's handler to see the stream close");
    assert.match(seen.aborted[0], /Connection closed/, "the server saw the stream close (through the wire tap)");
    await sleep(500);
    const final = await call.read();
    assert.equal(final.progress, at.progress, "no progress after Cancel");
    assert.equal(final.afterCancel, 0);
    assert.deepEqual(callWire(demo.wire, id).cancels, [], "no notifications/cancelled in 2026-07-28 over HTTP");
    assert.deepEqual(await transitions(page, id), ["running", "cancelling…", "cancelled"]);
    const log = await page.locator("#event-log li").allTextContents();
    assert.ok(log.some((line) => line.includes("cancel-sent") && line.includes("via: stream-close")));
    await screenshot(page, "browser-5-stream-close");
    assert.equal(await page.isHidden("#problem"), true, "no problem shown on the page");
    assert.deepEqual(tab.problems, []);
  });
});

describe("www/: connection errors are shown on the page", { timeout: 30_000 }, () => {
  let demo;
  let refusing;
  before(async () => {
    demo = await startDemoWeb({ port: 0 });
    // A server that answers but sends no CORS headers: the browser refuses its answer.
    refusing = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end("{}"));
    await new Promise((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    refusing?.closeAllConnections();
    await new Promise((resolve) => (refusing ? refusing.close(resolve) : resolve()));
    await demo?.close();
  });

  for (const [what, url] of [
    ["unreachable", async () => `http://127.0.0.1:${await freePortAfterClose()}/mcp`],
    ["CORS refused", () => `http://127.0.0.1:${refusing.address().port}/mcp`],
  ]) {
    test(`${what}: a readable message, and not connected`, async () => {
      const target = await url();
      const tab = await openPage(browser, `${demo.pageUrl}?server=${encodeURIComponent(target)}`);
      try {
        const { page } = tab;
        assert.equal(await page.inputValue("#server-url"), target);
        await page.click("#connect");
        await page.locator("#problem:not([hidden])").waitFor();
        assert.match(await page.textContent("#problem-text"), /^Could not connect: Could not reach http:\/\/127\.0\.0\.1:\d+\/mcp\. .*CORS/);
        assert.equal(await page.textContent("#connection-status"), "Not connected.");
        assert.equal(await page.getAttribute("#problem", "role"), "alert");
        if (what === "unreachable") await screenshot(page, "browser-6-unreachable");
      } finally {
        await tab.close();
      }
    });
  }
});

/** A port that was free a moment ago (nothing listens there now). */
async function freePortAfterClose() {
  const probe = http.createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** An SDK 2.x server (2026-07-28) with `slow`: progress every 100 ms, stops when its request ends. CORS open, as a browser needs. */
async function startSdk2Server(seen) {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "slow-2x", version: "0.0.0" }, { capabilities: { tools: {} } });
    server.registerTool("slow", { description: "Counts to `steps`, one step every 100 ms.", inputSchema: z.object({ steps: z.number() }) }, async ({ steps }, ctx) => {
      const { signal } = ctx.mcpReq;
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 100);
          signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        });
        if (signal.aborted) {
          seen.aborted.push(String(signal.reason));
          return { content: [{ type: "text", text: "aborted" }] };
        }
        if (token !== undefined) {
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } }).catch(() => {});
        }
      }
      return { content: [{ type: "text", text: `done ${steps}` }] };
    });
    return server;
  });
  const nodeHandler = toNodeHandler(handler);
  const allowCors = cors({ origin: "*", exposedHeaders: ["mcp-session-id", "mcp-protocol-version"] });
  const server = http.createServer((req, res) => allowCors(req, res, () => nodeHandler(req, res)));
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    close: async () => {
      await handler.close?.();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
