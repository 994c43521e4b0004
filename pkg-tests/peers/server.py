"""An MCP server over stdio for the real-peer matrix, on Python `mcp` 2.x (MCPServer) or 1.x
(FastMCP): `slow` honours cancellation and reports progress; `stubborn` ignores it; `ask` elicits
from the client with `ctx.elicit(…)`."""

import asyncio

from pydantic import BaseModel

try:  # mcp 2.x
    from mcp.server import MCPServer as Server
    from mcp.server.mcpserver import Context
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context, FastMCP as Server

server = Server("python-peer")


@server.tool()
async def slow(ms: int, ctx: Context) -> str:
    """Sleeps `ms` milliseconds in 10 steps, reporting progress; stops when cancelled."""
    for step in range(1, 11):
        await asyncio.sleep(ms / 10000)
        await ctx.report_progress(step, 10)
    return f"slept {ms} ms"


@server.tool()
async def stubborn(ms: int) -> str:
    """Sleeps `ms` milliseconds and returns, ignoring cancellation."""
    loop = asyncio.get_running_loop()
    end = loop.time() + ms / 1000
    while loop.time() < end:
        try:
            await asyncio.sleep(min(0.01, max(0.0, end - loop.time())))
        except asyncio.CancelledError:
            continue
    return f"ignored the cancel for {ms} ms"


class Name(BaseModel):
    name: str


@server.tool()
async def ask(ctx: Context) -> str:
    """Asks the client for a name (elicitation) and returns what it answered."""
    answer = await ctx.elicit("What is your name?", Name)
    return f"elicitation: {answer.action}"


if __name__ == "__main__":
    server.run()
