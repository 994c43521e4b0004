// mcp-cancel for Node (ESM): the same module instance as `require("mcp-cancel")`. Loaded
// with `createRequire`, not `import … from "….cjs"`: Node's ESM translator for CommonJS cost
// ~50 ms of start-up here (BENCHMARKS.md "Start-up").
import { createRequire } from "node:module";

const cjs = createRequire(import.meta.url)("../dist/node/index.cjs");

export const { CancellationSession, createRelay, guardTransport, init, InvalidArgumentError, McpCancelError, UsageError } = cjs;
