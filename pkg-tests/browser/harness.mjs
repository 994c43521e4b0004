// Driving the www/ page in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core; its own browser download does not work here): launch, connect, run a
// call, read a call's card, record its state changes, save screenshots.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "artifacts");

/** Headless Chromium kept off the network (playwright-core gives it a fresh temporary profile). */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    timeout: 30_000,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Opens the page (waiting for mcp-cancel's wasm to load). Uncaught page errors and failed
 * loads of the page's own files are collected in `problems`.
 */
export async function openPage(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => {
    if (request.url().startsWith(new URL(url).origin)) problems.push(`failed to load ${request.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  return { page, problems, close: () => context.close() };
}

/** Presses Connect and waits for the tool list. Returns the connection status line. */
export async function connect(page) {
  await page.click("#connect");
  await page.waitForSelector("#tool-section:not([hidden])");
  return page.textContent("#connection-status");
}

/** Runs `tool` with `args` from the form; returns the new call's request id (as shown on its card). */
export async function runCall(page, tool, args) {
  const before = await page.locator("li.call").count();
  await page.selectOption("#tool", tool);
  await page.fill("#tool-args", JSON.stringify(args));
  await page.click("#run");
  await page.waitForFunction((n) => document.querySelectorAll("li.call[data-request-id]").length > n, before);
  return Number(await page.locator("li.call").first().getAttribute("data-request-id"));
}

/** A call's card: its locator and what it shows. */
export function card(page, id) {
  const el = page.locator(`li.call[data-request-id="${id}"]`);
  return {
    el,
    cancel: () => el.locator("button.cancel").click(),
    waitFor: (state, timeout) => page.locator(`li.call[data-request-id="${id}"][data-state="${state}"]`).waitFor({ timeout }),
    async read() {
      return el.evaluate((li) => ({
        state: li.dataset.state,
        status: li.querySelector(".call-status").textContent.replace(/\s+/g, " ").trim(),
        progress: Number(li.querySelector(".call-progress").value),
        dropped: Number(li.querySelector(".count-dropped").textContent),
        afterCancel: Number(li.querySelector(".count-after-cancel").textContent),
        result: li.querySelector(".call-result").hidden ? undefined : li.querySelector(".call-result").textContent,
        cancelLabel: li.querySelector("button.cancel").getAttribute("aria-label"),
      }));
    },
  };
}

/** Starts recording every state change of every call card (in `window.__transitions`). */
export function recordTransitions(page) {
  return page.evaluate(() => {
    window.__transitions = [];
    const note = () => {
      for (const li of document.querySelectorAll("li.call[data-request-id]")) {
        const id = Number(li.dataset.requestId);
        const last = window.__transitions.findLast((t) => t.id === id);
        if (last?.state !== li.dataset.state) {
          window.__transitions.push({ id, state: li.dataset.state, text: li.querySelector(".state").textContent });
        }
      }
    };
    new MutationObserver(note).observe(document.getElementById("calls"), {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ["data-state", "data-request-id"],
    });
  });
}

/** The state texts a call's card went through, in order. */
export function transitions(page, id) {
  return page.evaluate((id) => window.__transitions.filter((t) => t.id === id).map((t) => t.text), id);
}

/** Waits until `pred()` (sync or async) is true, polling every 50 ms; throws after `ms`. */
export async function eventually(pred, ms, what) {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Saves a full-page screenshot to pkg-tests/artifacts/<name>.png; returns its path. */
export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
