// Typings of mcp-cancel 1.0. The event schema (`CancellationEvent`) is checked against the
// Rust core's events by `cargo test` (tests/typings.rs): a member added there and not here
// fails the build.

/** A JSON-RPC request id. `"1"` and `1` differ; `0` and `""` are valid. Numbers must be safe integers. */
export type RequestId = string | number;

/** Any JSON-RPC 2.0 message (request, notification, result or error response). */
export interface JSONRPCMessage {
  jsonrpc: "2.0";
  id?: RequestId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

/** The `notifications/cancelled` a session makes (every revision, §Cancellation). */
export interface CancelledNotification {
  jsonrpc: "2.0";
  method: "notifications/cancelled";
  params: { requestId: RequestId; reason?: string };
}

/**
 * The `tasks/cancel` request a session makes for a task-augmented request (2025-11-25
 * §Tasks; 2026-07-28 tasks extension). Its id is the session's own (`"mcp-cancel:<n>"`,
 * never an id the application has in flight); pass its response to `shouldDropIncoming()`,
 * which consumes it.
 */
export interface TasksCancelRequest {
  jsonrpc: "2.0";
  id: string;
  method: "tasks/cancel";
  params: { taskId: string };
}

/** A spec revision mcp-cancel knows. */
export type Revision = "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25" | "2026-07-28";

/** Why a cancel of ours was not sent. */
export type NotSentWhy = "not-in-flight" | "handshake" | "task-settled";
/** Why a peer's cancel was ignored. */
export type IgnoredWhy = "malformed" | "not-in-flight" | "wrong-direction" | "already-cancelled" | "handshake" | "peer-may-not-cancel" | "task-augmented";

/**
 * Every cancellation event, as given to the `onEvent` option. `direction` is "outbound" for
 * requests we sent, "inbound" for the peer's, "session" for the session itself. Reasons are
 * capped to `maxReasonBytes`.
 */
export type CancellationEvent =
  | { type: "cancel-sent"; direction: "outbound"; requestId: RequestId; method: string; via: "notification" | "stream-close" | "tasks-cancel"; reason?: string; taskId?: string }
  | { type: "cancel-not-sent"; direction: "outbound"; requestId: RequestId; method?: string; why: NotSentWhy }
  | { type: "cancel-cascaded"; direction: "outbound"; requestId: RequestId; method: string; parentId: RequestId }
  | { type: "cancel-deferred"; direction: "outbound"; requestId: RequestId; method: string }
  | { type: "timed-out"; direction: "outbound"; requestId: RequestId; method: string; kind: "timeout" | "max-total" }
  | { type: "task-cancel-answered"; direction: "outbound"; requestId: RequestId; taskId: string; outcome: "cancelled" | "already-terminal" | "error"; code?: number }
  | { type: "listen-ended"; direction: "outbound"; requestId: RequestId; reason?: string }
  | { type: "revision-negotiated"; direction: "session"; version: string; revision: Revision; known: boolean }
  | { type: "cancel-received"; direction: "inbound"; requestId: RequestId; method: string; reason?: string }
  | { type: "cancel-ignored"; direction: "inbound"; requestId?: RequestId; why: IgnoredWhy; detail?: string; reason?: string }
  | { type: "late-response-dropped"; direction: "outbound"; requestId: RequestId; method: string }
  | { type: "late-progress-dropped"; direction: "outbound"; requestId: RequestId; method: string; progressToken: RequestId }
  | { type: "response-suppressed"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "duplicate-request-id"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "inbound-forgotten"; direction: "inbound"; requestId: RequestId; method: string }
  | { type: "send-failed"; direction: "outbound"; requestId: RequestId; error: unknown };

/**
 * Timeouts of a request, in ms, with the MCP TypeScript SDK's names and meanings
 * (2025-03-26 §Lifecycle "Timeouts"; 2026-07-28 §Cancellation "Timeouts"). Any finite
 * non-negative number (fractions round up), of any length. On expiry the request is
 * cancelled with the `timeoutReason` and its signal aborts with a `TimeoutError`.
 */
export interface TimeoutOptions {
  /** Cancel when no response came within this many ms of the start (or of the last progress, with `resetTimeoutOnProgress`). */
  timeout?: number;
  /** Restart the `timeout` clock on each `notifications/progress` for the request. Default false. */
  resetTimeoutOnProgress?: boolean;
  /** Cancel when no response came within this many ms of the start, progress or not. Fires once, at its deadline. */
  maxTotalTimeout?: number;
}

/**
 * Options of `new CancellationSession(options)`. Every member is optional; an unknown member
 * is an `InvalidArgumentError` (`ERR_INVALID_OPTION`) that names it.
 */
export interface CancellationSessionOptions extends TimeoutOptions {
  /** Where every cancel message the session makes goes: the `notifications/cancelled` or `tasks/cancel` of an abort, a timeout, `cancel()` or a deferred task cancel. Required for requests tracked with a `signal` or a timeout. */
  send?: (message: CancelledNotification | TasksCancelRequest) => void;
  /** 2026-07-28 over Streamable HTTP: called to close the response stream of a cancelled request (that is the cancel; nothing is sent). */
  closeStream?: (requestId: RequestId) => void;
  /** Called when a request's timeout expires, after its cancel went out, with a `DOMException` named `TimeoutError`. */
  onTimeout?: (requestId: RequestId, error: DOMException) => void;
  /**
   * Called when a request of ours was cancelled because the peer cancelled the request it was
   * sent for (`relate()`), after its cancel went out, with a `DOMException` named
   * `AbortError` whose message is the `cascadeReason`.
   */
  onCascade?: (requestId: RequestId, error: DOMException) => void;
  /** Reason sent for a nested request whose parent the peer cancelled (`relate()`). Default "The request it was sent for was cancelled". */
  cascadeReason?: string;
  /** Called with every cancellation event. Default: none (with `DEBUG=mcp-cancel` in Node: printed by `debug`). */
  onEvent?: (event: CancellationEvent) => void;
  /** The negotiated protocol version, if known up front (else learned from the `initialize` result or `setProtocolVersion()`). */
  protocolVersion?: string;
  /** The transport: "stdio" (or any message transport; default) or "streamable-http" (2026-07-28: a cancel closes the request's stream). */
  transport?: "stdio" | "streamable-http";
  /**
   * Which end of the connection the session keeps the books of. Default "client". In
   * 2026-07-28 only the client cancels (spec 2026-07-28 §Cancellation): as a "client" the
   * peer's cancels are valid only to end our `subscriptions/listen`; as a "server" (an MCP
   * server, a proxy's client side) the peer's cancels of its own requests are valid in every
   * revision.
   */
  role?: "client" | "server";
  /** Cancelled requests remembered to drop their late messages (oldest forgotten first). Default 1024. */
  tombstoneCapacity?: number;
  /** The peer's requests in flight remembered (oldest forgotten first, with an `inbound-forgotten` event). Default 4096. */
  inboundCapacity?: number;
  /** Longest `reason` sent or reported, in bytes of UTF-8: an integer from 0 to 4096 (`ERR_INVALID_OPTION` otherwise). Default 1024. */
  maxReasonBytes?: number;
  /** Send an `Error` reason's "Name: message" to the peer. Default false: `genericReason` is sent instead. */
  exposeErrorReasons?: boolean;
  /** Reason sent for an `Error` reason when errors are not exposed. Default "Request cancelled". */
  genericReason?: string;
  /** Reason sent for a timeout. Default "Request timed out". */
  timeoutReason?: string;
}

/**
 * The options a message is sent with, as `beforeSend()` reads them: a transport's send
 * options may be passed as they are (other members are ignored).
 */
export interface BeforeSendOptions {
  /** The request's signal (the Vercel AI SDK's `MCPTransportSendOptions.signal`): aborting it cancels the request. */
  signal?: AbortSignal;
}

/** Options of `track()`; an unknown member is an `InvalidArgumentError` that names it. */
export interface TrackOptions extends TimeoutOptions {
  /** Aborting it cancels the request (the cancel goes to `send`). Listened to, never wrapped; the listener is removed when the request settles. */
  signal?: AbortSignal;
  /** The request's `params`; only `_meta.progressToken`, `task` and `taskId` are read. */
  params?: unknown;
}

/**
 * The cancellation bookkeeping of one MCP connection. Track each request you send (or pass
 * every outgoing message to `beforeSend()`), pass every message that arrives to
 * `shouldDropIncoming()`, and cancel with an `AbortSignal` or `cancel()`. Follows the rules
 * of the negotiated revision (2024-11-05 to 2026-07-28, §Cancellation, §Lifecycle
 * "Timeouts", §Tasks). Every boolean answer is named for what `true` means.
 *
 * @example
 * ```ts
 * const session = new CancellationSession({ send: (m) => transport.send(m) });
 * const ac = new AbortController();
 * session.track(7, "tools/call", { signal: ac.signal });
 * await transport.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params });
 * ac.abort("user pressed stop"); // → notifications/cancelled { requestId: 7, reason: "user pressed stop" }
 * session.shouldDropResponse(7); // → true: the late result is dropped
 * ```
 */
export class CancellationSession {
  /**
   * @throws {InvalidArgumentError} `ERR_INVALID_OPTION` for an option of the wrong type or an unknown one.
   * @throws {UsageError} `ERR_NOT_INITIALIZED` in a browser before `init()` resolved; in a Worker
   *   when the bundler did not give the `.wasm` import as a compiled `WebAssembly.Module`.
   */
  constructor(options?: CancellationSessionOptions | null);
  /**
   * Records a request we send: its id, `method`, and from `options.params` its
   * `_meta.progressToken`, `task` (task-augmented, 2025-11-25) and `taskId`. Aborting
   * `options.signal` cancels it; timeouts (or the session's) cancel it when they expire.
   * Creates no `AbortSignal`: ask `signal(id)` for one.
   *
   * @throws the signal's `reason` when `options.signal` is already aborted (nothing is tracked).
   * @throws {InvalidArgumentError} `ERR_INVALID_REQUEST_ID` (id or progress token not a string or safe integer), `ERR_INVALID_ARGUMENT` (method not a string), `ERR_INVALID_OPTION`.
   * @throws {UsageError} `ERR_ALREADY_IN_FLIGHT`, `ERR_PROGRESS_TOKEN_IN_USE`, `ERR_SEND_REQUIRED` (a signal or timeout without `send`), `ERR_CLOSED`.
   */
  track(id: RequestId, method: string, options?: TrackOptions): void;
  /**
   * The `AbortSignal` of our request `id`, made on first ask: it aborts when the request is
   * cancelled — with the abort's or `cancel()`'s reason, or a `DOMException` named
   * `TimeoutError` on a timeout — and never once the request completed. `undefined` when
   * `id` is not in flight (or the session is closed).
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_REQUEST_ID`.
   */
  signal(id: RequestId): AbortSignal | undefined;
  /**
   * Cancels our request `id` (the first reason wins). `reason`: a string (sent, capped to
   * `maxReasonBytes`), an `Error`/`DOMException` (the `genericReason` is sent unless
   * `exposeErrorReasons`), a `DOMException` named `TimeoutError` (the `timeoutReason`), or
   * `undefined` (no reason).
   *
   * @returns without a `send` option, the message to put on the wire (a
   *   `notifications/cancelled`, or a `tasks/cancel` for a task whose id is known); with one,
   *   `undefined` (the message went to `send`). Also `undefined` when there is nothing to
   *   send: not in flight, a task whose id is not known yet (its `tasks/cancel` follows
   *   through `send`), or 2026-07-28 over Streamable HTTP (`closeStream` is called).
   * @throws {InvalidArgumentError} `ERR_INVALID_REQUEST_ID`.
   * @throws {UsageError} `ERR_HANDSHAKE_NOT_CANCELLABLE` for `initialize` (2024-11-05 .. 2025-11-25).
   */
  cancel(id: RequestId, reason?: unknown): CancelledNotification | TasksCancelRequest | undefined;
  /**
   * Handles a response that arrived and says whether to drop it: `true` when it answers a
   * request we cancelled (late) or our own `tasks/cancel`. Pass the whole response so a
   * `CreateTaskResult` starts its task, or just its id. Never throws.
   */
  shouldDropResponse(response: RequestId | JSONRPCMessage): boolean;
  /** Handles a `notifications/progress` by its `progressToken`: `true` to drop it (it belongs to a request we cancelled). Never throws. */
  shouldDropProgress(progressToken: RequestId): boolean;
  /**
   * Handles any message that arrived from the peer and says whether to drop it (`true`): a
   * late response or progress, our own `tasks/cancel`'s answer, or an invalid
   * `notifications/cancelled` (malformed, unknown, wrong direction, `initialize`, or any
   * server cancel in 2026-07-28: each reported as a `cancel-ignored` event). A valid peer
   * cancel aborts the request's `inboundSignal()`. Reads only `id`, `method` and the few
   * members the rules need; never copies the message. Never throws.
   */
  shouldDropIncoming(message: JSONRPCMessage | JSONRPCMessage[]): boolean;
  /**
   * `shouldDropIncoming()` as a filter: the message to deliver, or `undefined` to drop it.
   * A JSON-RPC batch (an array; 2025-03-26, and before a revision is negotiated) is examined
   * element by element: the same array when every element is kept, a new array without the
   * dropped ones, or `undefined` when none is left. In a revision without batches an array is
   * returned untouched. Never throws.
   */
  filterIncoming<M extends JSONRPCMessage | JSONRPCMessage[]>(message: M): M | JSONRPCMessage[] | undefined;
  /**
   * Handles a message we are about to send and returns what to put on the wire instead:
   * the same message; a copy of our SDK's own `notifications/cancelled` with the reason
   * policy applied, or the `tasks/cancel` that replaces it for a task; or `undefined` to
   * send nothing (a cancel for a request not in flight or `initialize`, our response to a
   * request the peer cancelled, 2026-07-28 over Streamable HTTP). A request is tracked. A
   * batch (2025-03-26) is handled element by element, as `filterIncoming()` does.
   *
   * `options` are the options the message is sent with; only `signal` is read (the Vercel
   * AI SDK passes each request's `AbortSignal` to its transport's `send(message, { signal })`):
   * aborting it cancels the request, as `track()`'s `signal` does — the cancel goes to
   * `send`, with the reason policy applied (a `TimeoutError`, or a client's own timeout
   * error such as the AI SDK's `MCPClientError` "Request timed out…", is a timeout); the
   * listener is removed when the request settles. Ignored for a message that is not a request.
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_REQUEST_ID` for a request whose id or progress token is not one; `ERR_INVALID_OPTION` when `options` is not an object or `signal` not an `AbortSignal`.
   * @throws {UsageError} `ERR_ALREADY_IN_FLIGHT`, `ERR_PROGRESS_TOKEN_IN_USE`; `ERR_SEND_REQUIRED` for a request with a `signal` in a session without `send` (as `track()`: its abort would have nowhere to send its cancel).
   * @throws the signal's `reason` when a request's `signal` has already aborted (nothing is tracked; send nothing).
   */
  beforeSend<M extends JSONRPCMessage | JSONRPCMessage[]>(message: M, options?: BeforeSendOptions | null): M | JSONRPCMessage | JSONRPCMessage[] | undefined;
  /**
   * The `AbortSignal` of the peer's request `id` (seen by `shouldDropIncoming()`), made on
   * first ask: it aborts when the peer validly cancels, with the peer's `reason` string (as
   * the MCP TypeScript SDK's request handlers see it), or the default `AbortError`
   * `DOMException` when the peer gave none. `undefined` when not in flight.
   */
  inboundSignal(id: RequestId): AbortSignal | undefined;
  /**
   * Follows the rules of the negotiated protocol `version`. An unknown version follows the
   * newest revision dated on or before it and is reported (`revision-negotiated` with
   * `known: false`). Returns the revision followed (`undefined` once closed).
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `version` is not a string.
   */
  setProtocolVersion(version: string): Revision | undefined;
  /** The revision whose rules are followed, or `undefined` before one is known. */
  readonly revision: Revision | undefined;
  /**
   * Makes our request `id` (tracked, in flight) a nested request of the peer's request
   * `parentId` (seen by `shouldDropIncoming()`, in flight): it was sent while handling it, as
   * an elicitation or a sampling request a tool call makes (the MCP TypeScript SDK's
   * `relatedRequestId`). When the peer validly cancels `parentId`, `id` is cancelled too:
   * its `notifications/cancelled` goes to `send` with the `cascadeReason`, a
   * `cancel-cascaded` event names the parent, its own signal aborts and `onCascade` is
   * called. When `parentId` ends otherwise (our response), `id` is not touched. Returns
   * `false`, and relates nothing, when either is not in flight or is no request id; a
   * request has one parent, the first one given. Spec: every revision §Cancellation
   * "Behavior Requirements" (the receiver SHOULD stop processing a cancelled request).
   *
   * @throws {UsageError} `ERR_CLOSED` once the session is closed.
   */
  relate(id: RequestId, parentId: RequestId): boolean;
  /** Whether our request `id` can still be cancelled: in flight, or its task running. */
  isInFlight(id: RequestId): boolean;
  /** How many of our requests `isInFlight` would say `true` for. */
  readonly inFlightCount: number;
  /** Cancelled requests remembered (at most `tombstoneCapacity`). */
  readonly tombstoneCount: number;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** Forgets every request and releases the session (listeners, the timer, wasm memory); no cancel is sent. Idempotent. */
  close(): void;
  /** The same as `close()`. */
  free(): void;
}

/** Base class of every error mcp-cancel throws, with a stable `code` and the request id it is about. */
export class McpCancelError extends Error {
  constructor(message: string, code: McpCancelErrorCode, requestId?: unknown);
  readonly code: McpCancelErrorCode;
  readonly requestId: unknown;
}
/** Every `code` an `McpCancelError` carries. */
export type McpCancelErrorCode = InvalidArgumentErrorCode | UsageErrorCode;
/** Codes of `InvalidArgumentError`. */
export type InvalidArgumentErrorCode = "ERR_INVALID_REQUEST_ID" | "ERR_INVALID_OPTION" | "ERR_INVALID_ARGUMENT" | "ERR_INVALID_TRANSPORT";
/** Codes of `UsageError`. */
export type UsageErrorCode =
  | "ERR_ALREADY_IN_FLIGHT"
  | "ERR_PROGRESS_TOKEN_IN_USE"
  | "ERR_HANDSHAKE_NOT_CANCELLABLE"
  /** Not made since the session's calls cannot nest (kept for code that names it). */
  | "ERR_REENTRANT_CALL"
  | "ERR_SEND_REQUIRED"
  | "ERR_CLOSED"
  | "ERR_NOT_INITIALIZED"
  | "ERR_NODE_ONLY";
/** A value passed by the caller is not acceptable. */
export class InvalidArgumentError extends McpCancelError {
  readonly code: InvalidArgumentErrorCode;
}
/** The call is not acceptable in the session's state. */
export class UsageError extends McpCancelError {
  readonly code: UsageErrorCode;
}

/**
 * Loads the WebAssembly module. Browsers and bundlers: `await init()` once before creating a
 * session (the `.wasm` is fetched from `pkg/web/mcp_cancel_bg.wasm`, next to the wasm-bindgen
 * glue, or from `input`, e.g. the compiled
 * `mcp-cancel/mcp_cancel_bg.wasm`); concurrent calls share one load, and a failed load can be
 * retried. Not needed in Node, Deno and Bun (the `.wasm` loads with the import) nor in
 * Workers and edge hosts (export conditions `workerd`, `worker`, `edge-light`: the `.wasm`
 * is imported as a compiled module and instantiated with the first session); there it
 * resolves at once and ignores `input`.
 */
export function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;

/**
 * The subset of a transport the guard needs: the MCP TypeScript SDK's `Transport` (1.x
 * `shared/transport`, 2.x) and the Vercel AI SDK's `MCPTransport` (`@ai-sdk/mcp` 1.x, 2.x).
 */
export interface TransportLike {
  start(): Promise<void>;
  /** `options`: the SDK's `TransportSendOptions`, or the AI SDK's `{ signal?, headers?, … }`; passed on as given. */
  send(message: any, options?: any): Promise<void>;
  close(options?: any): Promise<void>;
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  sessionId?: string | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
  /** SDK 2.x: true for transports with a response stream per request (Streamable HTTP). */
  readonly hasPerRequestStream?: boolean;
}

/**
 * Options of `guardTransport()`: the session options, without `send` and `closeStream`
 * (the guard's). `transport` defaults to "streamable-http" when the inner transport has
 * per-request streams (SDK 2.x). Timeouts apply to every request the SDK sends except the
 * handshake: on expiry the cancel goes out and the SDK gets a -32001 "Request timed out"
 * error response (`{ code: -32001, message: "Request timed out", data: { reason: "timeout",
 * detail } }`, `detail` the `TimeoutError`'s message); `onTimeout` is called too.
 *
 * A request the SDK sends while it handles the peer's request (an elicitation or a sampling
 * request of a tool call) is that request's nested request: from the `relatedRequestId` the
 * SDK gives, else from the async context the handler runs in (`AsyncLocalStorage`, in Node,
 * Deno, Bun and workerd with `nodejs_compat`; elsewhere `relatedRequestId` only). When the
 * peer cancels the request, each nested request still in flight is cancelled on the wire and
 * the SDK's promise for it rejects at once with the error response `{ code: -32000, message:
 * "The request it was sent for was cancelled", data: { reason: "parent-cancelled", detail } }`;
 * `onCascade` is called too.
 *
 * The SDK above the guard gets the peer's requests `0` and `""`, and their cancels, under a
 * stand-in id (a string with a random tag), so that the SDK 1.x, which drops a cancel of a falsy
 * id, aborts their handlers; responses go out with the peer's id.
 */
export type GuardOptions = Omit<CancellationSessionOptions, "send" | "closeStream">;

/** A guarded transport: the inner transport's members, plus the session that guards it. */
export type GuardedTransport<T extends TransportLike> = T & {
  readonly session: CancellationSession;
  readonly inner: T;
  /**
   * The negotiated protocol version: the inner transport's own when it keeps one, else the
   * one set through `setProtocolVersion()`. Assigning it (as the AI SDK does for a transport
   * without `setProtocolVersion()`) is `setProtocolVersion()`.
   */
  protocolVersion: string | undefined;
};

/**
 * Wraps an MCP SDK `Transport` so that an unmodified SDK `Client` gets the cancellation
 * bookkeeping: cancels only for requests in flight and never for `initialize`, the reason
 * policy, late responses/progress after a cancel dropped, our response to a request the
 * peer cancelled suppressed, task-augmented requests cancelled with one `tasks/cancel`
 * (deferred until the taskId is known), timeouts, and in 2026-07-28 over Streamable HTTP the
 * cancel as closing the request's stream. Works with SDK 1.x and 2.x.
 *
 * The Vercel AI SDK (`createMCPClient({ transport: guardTransport(inner) })`, `@ai-sdk/mcp`
 * 1.x and 2.x) sends no cancel itself: the guard cancels a request when the `signal` its
 * `send()` received aborts (the app's `abortSignal`, or the AI SDK's own timeout: sent with
 * the timeout reason), and drops the late answer the AI SDK would report as "a response for
 * an unknown message ID".
 *
 * Members the guard does not define are the inner transport's own (reads, writes, `in`;
 * methods run on the inner transport), so it stacks with other wrappers in either order and
 * keeps `sessionId`, `hasPerRequestStream` and the AI SDK's flags; `send()`'s options are
 * passed on. Spec: §Cancellation of 2024-11-05 .. 2026-07-28, §Lifecycle "Timeouts", §Tasks
 * (2025-11-25).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_TRANSPORT` when `transport` has no `start()`/`send()`; `ERR_INVALID_OPTION` for a bad option (the removed `session` option included).
 */
export function guardTransport<T extends TransportLike>(transport: T, options?: GuardOptions | null): GuardedTransport<T>;

/**
 * Options of `createRelay()`: the upstream transport, the relay's own settings, and the
 * upstream session's options (its transport kind, timeouts, reason policy, capacities; see
 * `CancellationSessionOptions`). An unknown option is an `InvalidArgumentError`.
 */
export interface RelayOptions extends Pick<
  CancellationSessionOptions,
  | "transport"
  | "protocolVersion"
  | "tombstoneCapacity"
  | "inboundCapacity"
  | "maxReasonBytes"
  | "exposeErrorReasons"
  | "genericReason"
  | "timeoutReason"
  | "timeout"
  | "maxTotalTimeout"
  | "resetTimeoutOnProgress"
> {
  /** The server's transport (an MCP SDK `Transport`, not started: `relay.start()` starts it). `transport` defaults to "streamable-http" when it has per-request streams (SDK 2.x). */
  upstream: TransportLike;
  /** Most requests one client may have in flight; beyond it the relay answers -32000 and forwards nothing. Default 4096. */
  maxInFlightPerClient?: number;
  /**
   * Every cancellation event of either side, with `side: "upstream" | "downstream"` and,
   * downstream, the client's `link`; and the relay's own events about a client that may
   * have vanished (`RelayClientEvent`, downstream, for clients connected with
   * `resumeGrace` or `idleTtl`).
   */
  onEvent?: (event: (CancellationEvent | RelayClientEvent) & { side: "upstream" | "downstream"; link?: number }) => void;
  /** The upstream transport closed (every request in flight was failed with -32000 first). */
  onUpstreamClose?: () => void;
  /** A transport's error, or a send that failed. */
  onError?: (error: Error) => void;
}

/**
 * What the relay did about a client that may have vanished (its process killed, its machine
 * asleep), an `onEvent` event with `side: "downstream"` and the client's `link`. Ids:
 * `requestId` is the client's own, `upstreamId` the relay's on the server's side. Spec,
 * Streamable HTTP 2025-03-26 .. 2025-11-25: a closed response stream "SHOULD NOT be
 * interpreted as the client cancelling its request" and may be resumed (`Last-Event-ID`); a
 * server MAY end a session at any time (404 after).
 */
export type RelayClientEvent =
  /** The response stream of `requestId` closed with it in flight: cancelled upstream after `graceMs` unless resumed. */
  | { type: "stream-lost"; requestId: RequestId; upstreamId: number; graceMs: number }
  /** A stream of the client resumed `requestId` in time (`upstreamId` absent: it was answered meanwhile). */
  | { type: "stream-resumed"; requestId: RequestId; upstreamId?: number }
  /** Not resumed within `graceMs`: cancelled upstream with `reason` ("Client vanished: …"); its client gets no answer. */
  | { type: "stream-not-resumed"; requestId: RequestId; upstreamId: number; graceMs: number; reason: string }
  /**
   * The client sent nothing for `ttlMs`: it is ended (its transport closed); `requests` were in
   * flight, each answered with -32000 and cancelled upstream with `reason` ("Client session expired: …").
   */
  | { type: "session-expired"; ttlMs: number; requests: Array<{ requestId: RequestId; upstreamId: number }>; reason: string };

/** Options of `relay.connect()`. */
export interface RelayConnectOptions {
  /** The client's transport is Streamable HTTP (default: its `hasPerRequestStream`). */
  streamableHttp?: boolean;
  /**
   * ms a request whose response stream closed (`streamClosed(id)`) waits, in revisions where
   * that is not a cancel (before 2026-07-28), for `streamResumed(id)` before the relay
   * cancels it upstream with the reason "Client vanished: its response stream closed and was
   * not resumed within <resumeGrace> ms". `0`: at once. Default: never (the request runs on).
   */
  resumeGrace?: number;
  /**
   * ms the client may send nothing (no message, no `heard()`) before the relay ends it: its
   * requests in flight are answered with -32000 and cancelled upstream ("Client session
   * expired: no request for <idleTtl> ms"), and its transport is closed. A request in flight
   * does not keep it alive. Default: never.
   */
  idleTtl?: number;
  /**
   * The client is on this revision from the start, whatever the server's: for a client of a
   * revision without a handshake (2026-07-28) over Streamable HTTP, one client per request
   * (`classifyHttp()` says which requests are). Such a client takes no broadcast and no
   * request of the server's; its `server/discover` is answered by the relay from the
   * server's `initialize` result (make it first: `handshake()`); its answers are made
   * 2026-07-28 ones with `modernAnswer()`; closing its request's stream is its cancel
   * (`streamClosed(id)`). Not with `resumeGrace` or `idleTtl`.
   */
  protocolVersion?: string;
}

/** A client of a relay (`relay.connect()`). */
export interface RelayClient {
  /** The client's number in events (`link`). */
  readonly link: number;
  /**
   * The client closed the response stream of its request `id`. Over Streamable HTTP in
   * 2026-07-28 that is its cancel (handled as its `notifications/cancelled`; returns `true`).
   * In earlier revisions a disconnection is not a cancel: with `resumeGrace` the request is
   * cancelled upstream when the grace ends unless `streamResumed(id)` comes first (`true`
   * only for a grace of 0, cancelled at once); without, nothing happens (`false`).
   */
  streamClosed(id: RequestId): boolean;
  /** A stream of the client resumed its request `id` (e.g. a GET with `Last-Event-ID`): `true` when it was waiting for that within its grace. */
  streamResumed(id: RequestId): boolean;
  /** The client was heard from without a message (e.g. an HTTP request of its session that carries none): its `idleTtl` counts from now. */
  heard(): void;
  /** Forgets the client (as its transport closing does): its requests in flight are cancelled upstream. */
  disconnect(): void;
}

/** A relay (`createRelay()`). */
export interface Relay {
  /** Starts the upstream transport. */
  start(): Promise<void>;
  /**
   * Connects a client's transport (already started, or started by the caller next): its
   * messages go upstream, with ids the relay chooses. `options`: its transport kind and what
   * is done when it vanishes (`RelayConnectOptions`).
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_TRANSPORT`; `ERR_INVALID_OPTION` for a
   * `resumeGrace` or `idleTtl` that is not a finite number of at least 0.
   * @throws {UsageError} `ERR_CLOSED`.
   */
  connect(transport: TransportLike, options?: RelayConnectOptions): RelayClient;
  /**
   * What an HTTP request to a Streamable HTTP endpoint in front of the relay is, by the core's
   * rules: a 2025-era session's (`"session"`: it carries `Mcp-Session-Id`; answer `404` when
   * the session is not yours), one that opens a session (`"open-session"`: `initialize`), a
   * 2026-07-28 one that needs no session (`"modern"`, its `version`), or one to refuse with
   * HTTP `status` and this JSON-RPC error (`id: null`). The body decides; the
   * `MCP-Protocol-Version` and `Mcp-Method` headers are checked against it (`400`, -32020).
   * Without `serveModern`, a 2026-07-28 request is refused with `400`, -32022
   * (`UnsupportedProtocolVersionError`) and `data: { supported, requested }` naming the 2025
   * revisions served, so a client that can fall back does. Spec: schema 2026-07-28
   * (`RequestMetaObject`, `HeaderMismatchError`, `UnsupportedProtocolVersionError`);
   * Streamable HTTP "Session Management" up to 2025-11-25.
   */
  classifyHttp(request: {
    /** The HTTP method. */
    method: string;
    /** The request headers, lower-case names (Node's `req.headers`). */
    headers: Record<string, string | string[] | undefined>;
    /** The parsed JSON body (POST). */
    body?: unknown;
    /** Serve 2026-07-28 requests (`"modern"`; a revision without a handshake mcp-cancel does not know is still refused -32022). Default false: refused -32022 naming the 2025 revisions. */
    serveModern?: boolean;
  }):
    | { entry: "session" | "open-session" }
    | { entry: "modern"; version: string }
    | { entry: "refuse"; status: number; code: number; message: string; data?: { supported: string[]; requested: string } };
  /**
   * Makes the server's handshake if no client has yet (for 2026-07-28 clients, whose
   * `server/discover` the relay answers from it): the relay's own `initialize` (the newest
   * revision with a handshake, no client capabilities, `clientInfo`), then
   * `notifications/initialized`. Later 2025-era clients are answered from its result, as
   * from a first client's. Resolves once done; rejects when the server answers with an error.
   */
  handshake(clientInfo: { name: string; version: string }): Promise<void>;
  /**
   * The server's answer to a 2026-07-28 client's request of `method`, made a 2026-07-28 one:
   * `resultType: "complete"`, `ttlMs: 0` and `cacheScope: "private"` on a cacheable result
   * (discovery, lists, `resources/read`) that lacks them, no member 2026-07-28 removed
   * (`execution` of tools, `tasks` of capabilities), error -32002 as -32602. Anything that
   * is not a response is returned as it is. Schema 2026-07-28 (`Result.resultType`,
   * `CacheableResult`).
   */
  modernAnswer(method: string, message: object): object;
  /** Requests in flight through the relay. */
  readonly inFlight: number;
  /** Clients connected. */
  readonly clientCount: number;
  /**
   * Disconnects every client (their requests in flight are cancelled upstream; those cancels
   * are awaited, up to 2000 ms), ends the upstream's HTTP session when it has one
   * (`terminateSession()`), and closes the upstream transport.
   */
  close(): Promise<void>;
}

/**
 * A relay between any number of MCP clients and one server, each side with its revision's
 * cancellation rules (Node only; its .wasm, pkg/relay-node/, loads on first use).
 *
 * Every request a client sends goes upstream under an id the relay chooses (a number
 * unique on the upstream connection; its `_meta.progressToken` likewise), and its response
 * and progress come back under the client's own id and token. A client's cancel (its
 * `notifications/cancelled`, or closing its request's stream) becomes the upstream
 * revision's cancel of that request only — a notification with the relay's id, a stream
 * close (2026-07-28 over Streamable HTTP) or a `tasks/cancel` — or nothing when it already
 * finished or is `initialize`; late answers and progress are dropped on both sides; a client
 * that disconnects has its requests cancelled upstream ("Client disconnected"); an upstream
 * timeout cancels upstream and answers the client -32001; the `initialize` handshake is
 * made once upstream and shared. The server's own requests (sampling, elicitation, …) go to
 * the only client connected, else to the only one with requests in flight, else are refused
 * with -32000; the client sees them under an id of the relay's (a number from 1), its answer
 * goes back under the server's, and when the client's requests they may serve are cancelled
 * (or it disconnects) the server's request is answered with -32000 and cancelled at the
 * client. A client's JSON-RPC
 * batch is refused with -32600 (`id: null`), the server's dropped. A 2026-07-28 client's
 * revision is read from its first request's `_meta` version. Spec:
 * §Cancellation of 2024-11-05 .. 2026-07-28, §Lifecycle "Timeouts", §Tasks (2025-11-25).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_OPTION`, `ERR_INVALID_TRANSPORT`.
 * @throws {UsageError} `ERR_NODE_ONLY` in the browser build (the relay's .wasm is Node's).
 */
export function createRelay(options: RelayOptions): Relay;
