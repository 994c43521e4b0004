// Where the npm package @modelcontextprotocol/server-everything keeps its entry point, and a
// stdio transport that runs it (used by the demo and the tests).
import { createRequire } from "node:module";
import path from "node:path";

import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const require = createRequire(import.meta.url);

/** Absolute path of server-everything's `dist/index.js`. */
export const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/** A new SDK 1.x stdio transport that spawns server-everything (stderr piped, not printed). */
export function spawnEverything() {
  return new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "pipe" });
}
