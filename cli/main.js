#!/usr/bin/env node
// The `mcp-cancel` command of the `mcp-cancel-cli` package (`npx mcp-cancel-cli <command> …`;
// installed, `mcp-cancel <command> …`). The library, `mcp-cancel`, installs no MCP SDK; this
// package carries the SDKs and the HTTP server the commands need. Each command is its own
// module, loaded only when it runs:
//
//   mcp-cancel bridge …       a cancellation-correct MCP bridge (stdio ↔ Streamable HTTP)
//   mcp-cancel conformance …  checks an MCP server's or client's cancellation
//
// `mcp-cancel <command> --help` prints a command's own usage.

const COMMANDS = {
  bridge: { module: "./bridge.js", summary: "relay MCP between stdio and Streamable HTTP, cancels translated per revision" },
  conformance: { module: "./conformance/main.js", summary: "check an MCP server's or client's cancellation, scenario by scenario" },
};

function usage() {
  const lines = Object.entries(COMMANDS).map(([name, { summary }]) => `  ${name.padEnd(12)} ${summary}`);
  return `usage: mcp-cancel <command> [options]   (or: npx mcp-cancel-cli <command> [options])\n\ncommands:\n${lines.join("\n")}\n\nmcp-cancel <command> --help for a command's options\n`;
}

const [name, ...args] = process.argv.slice(2);
if (name === undefined || name === "--help" || name === "-h" || name === "help") {
  process.stdout.write(usage());
  process.exit(name === undefined ? 2 : 0);
}
const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
if (command === undefined) {
  process.stderr.write(`mcp-cancel: unknown command "${name}"\n\n${usage()}`);
  process.exit(2);
}
const { main } = await import(command.module);
process.exitCode = await main(args);
