// mcp-cancel for Node (ESM): the same module instance as `require("mcp-cancel")`.
import cjs from "../dist/node/index.cjs";

export const { CancellationSession, guardTransport, init, InvalidArgumentError, McpCancelError, UsageError } = cjs;
