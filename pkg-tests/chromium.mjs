// Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by
// playwright-core (its own browser download does not work here), with the flags that keep it
// off the network (see shared/toolchain.md).
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Launches headless Chromium with a fresh profile. Returns `{ browser, close }`; `close()`
 * also removes the profile.
 */
export async function launchChromium() {
  const profile = await mkdtemp(path.join(os.tmpdir(), "mcp-cancel-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}
