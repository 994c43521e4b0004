// What must and must not type-check against the published typings.
import {
  CancellationSession,
  guardTransport,
  init,
  InvalidArgumentError,
  McpCancelError,
  UsageError,
  type CancellationEvent,
  type CancelledNotification,
  type RequestId,
  type Revision,
  type TasksCancelRequest,
} from "mcp-cancel";

await init();

const seen: string[] = [];
const session = new CancellationSession({
  tombstoneCapacity: 16,
  timeoutMs: 30_000,
  transport: "streamable-http",
  send: (message: CancelledNotification | TasksCancelRequest) => seen.push(message.method),
  logger: (event: CancellationEvent) => {
    // The event union narrows on `type`.
    if (event.type === "cancel-sent") {
      const via: "notification" | "stream-close" | "tasks-cancel" = event.via;
      seen.push(via);
    }
    if (event.type === "cancel-ignored") {
      const why: string = event.why;
      seen.push(why);
    }
  },
});

const id: RequestId = "req-7";
const signal: AbortSignal | undefined = session.track(id, "tools/call", { signal: new AbortController().signal, timeoutMs: 500 });
void signal;
const message = session.cancel(id, "user pressed stop");
if (message !== undefined) {
  const method: "notifications/cancelled" | "tasks/cancel" = message.method;
  void method;
}
const late: boolean = session.shouldDropResponse({ jsonrpc: "2.0", id: 7, result: {} });
const pass: boolean = session.receive({ jsonrpc: "2.0", method: "notifications/progress", params: {} });
const revision: Revision | undefined = session.revision;
void [late, pass, revision];

const error: McpCancelError = new InvalidArgumentError("bad id", "ERR_INVALID_REQUEST_ID", 1.5);
const code: string = error.code;
void code;
void new UsageError("x", "ERR_ALREADY_IN_FLIGHT");

const transport = {
  start: async () => {},
  send: async (_message: unknown) => {},
  close: async () => {},
};
const guarded = guardTransport(transport, { logger: (e) => seen.push(e.type), maxTotalTimeoutMs: 60_000 });
const inner: typeof transport = guarded.inner;
void inner;
const guardSession: CancellationSession = guarded.session;
void guardSession;

// ----- what must not type-check -----
// @ts-expect-error request ids are string | number
session.track(true, "tools/call");
// @ts-expect-error tombstoneCapacity is a number
new CancellationSession({ tombstoneCapacity: "many" });
// @ts-expect-error transport is "stdio" | "streamable-http"
new CancellationSession({ transport: "websocket" });
// @ts-expect-error the logger receives an event object
new CancellationSession({ logger: (event: string) => event.length });
// @ts-expect-error guardTransport needs an MCP Transport (start + send + close)
guardTransport({ send: async () => {} });
// @ts-expect-error the guard's send is its own
guardTransport(transport, { send: () => {} });
