// A CommonJS TypeScript file: `require` resolves to the package's .d.cts typings.
import mcpCancel = require("mcp-cancel");

const session = new mcpCancel.CancellationSession({ tombstoneCapacity: 8 });
const dropped: boolean = session.shouldDropResponse(1);
void dropped;
// @ts-expect-error ids are string | number
session.cancel({ id: 1 }, "reason");
