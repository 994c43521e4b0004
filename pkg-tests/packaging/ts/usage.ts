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
// The `.wasm` subpath (Workers, edge hosts): typed as the compiled module their bundlers give.
import wasm from "mcp-cancel/mcp_cancel_bg.wasm";

await init();
const compiled: WebAssembly.Module = wasm;
await init(compiled);

const seen: string[] = [];
const session = new CancellationSession({
  tombstoneCapacity: 16,
  timeout: 30_000,
  transport: "streamable-http",
  send: (message: CancelledNotification | TasksCancelRequest) => seen.push(message.method),
  onEvent: (event: CancellationEvent) => {
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
const tracked: void = session.track(id, "tools/call", { signal: new AbortController().signal, timeout: 500, resetTimeoutOnProgress: true, maxTotalTimeout: 5_000 });
void tracked;
// The request's own signal is asked for.
const signal: AbortSignal | undefined = session.signal(id);
void signal;
const inbound: AbortSignal | undefined = session.inboundSignal(3);
void inbound;
const message = session.cancel(id, "user pressed stop");
if (message !== undefined) {
  const method: "notifications/cancelled" | "tasks/cancel" = message.method;
  void method;
}
const late: boolean = session.shouldDropResponse({ jsonrpc: "2.0", id: 7, result: {} });
const drop: boolean = session.shouldDropIncoming({ jsonrpc: "2.0", method: "notifications/progress", params: {} });
const lateProgress: boolean = session.shouldDropProgress("p1");
const revision: Revision | undefined = session.revision;
const closed: boolean = session.closed;
void [late, drop, lateProgress, revision, closed];

const error: McpCancelError = new InvalidArgumentError("bad id", "ERR_INVALID_REQUEST_ID", 1.5);
const code: string = error.code;
void code;
// Codes are literal unions, per class.
const invalid = new InvalidArgumentError("bad id", "ERR_INVALID_REQUEST_ID", 1.5);
const invalidCode: "ERR_INVALID_REQUEST_ID" | "ERR_INVALID_OPTION" | "ERR_INVALID_ARGUMENT" | "ERR_INVALID_TRANSPORT" = invalid.code;
void invalidCode;
const closedCode: McpCancelError["code"] = "ERR_CLOSED";
const notInitialized: McpCancelError["code"] = "ERR_NOT_INITIALIZED";
void [closedCode, notInitialized];
void new UsageError("x", "ERR_ALREADY_IN_FLIGHT");

const transport = {
  start: async () => {},
  send: async (_message: unknown) => {},
  close: async () => {},
};
const guarded = guardTransport(transport, { onEvent: (e) => seen.push(e.type), maxTotalTimeout: 60_000 });
void guardTransport(transport, null);
void guardTransport(transport);
const inner: typeof transport = guarded.inner;
void inner;
const guardSession: CancellationSession = guarded.session;
void guardSession;

// ----- what must not type-check -----
// @ts-expect-error an error code that does not exist
const bogusCode: McpCancelError["code"] = "ERR_NOPE";
void bogusCode;
// @ts-expect-error request ids are string | number
session.track(true, "tools/call");
// @ts-expect-error tombstoneCapacity is a number
new CancellationSession({ tombstoneCapacity: "many" });
// @ts-expect-error transport is "stdio" | "streamable-http"
new CancellationSession({ transport: "websocket" });
// @ts-expect-error onEvent receives an event object
new CancellationSession({ onEvent: (event: string) => event.length });
// @ts-expect-error 0.1's `logger` is `onEvent` in 1.0
new CancellationSession({ logger: () => {} });
// @ts-expect-error 0.1's `timeoutMs` is `timeout` in 1.0
session.track(8, "tools/call", { timeoutMs: 500 });
// @ts-expect-error 0.1's `maxTotalTimeoutMs` is `maxTotalTimeout` in 1.0
new CancellationSession({ maxTotalTimeoutMs: 500 });
// @ts-expect-error track() returns nothing in 1.0: the signal is session.signal(id)
const noSignal: AbortSignal = session.track(9, "tools/call");
void noSignal;
// @ts-expect-error 0.1's receive() (true = keep) is shouldDropIncoming() (true = drop) in 1.0
session.receive({ jsonrpc: "2.0", id: 1, result: {} });
// @ts-expect-error the guard's `session` option was removed in 1.0 (read guarded.session)
guardTransport(transport, { session });
// @ts-expect-error guardTransport needs an MCP Transport (start + send + close)
guardTransport({ send: async () => {} });
// @ts-expect-error the guard's send is its own
guardTransport(transport, { send: () => {} });
