import type { CancellationSession, CancellationSessionOptions } from "../pkg/node/mcp_cancel.js";

export {
  CancellationSession,
  CancellationSessionOptions,
  CancellationEvent,
  CancelledNotification,
  IgnoredWhy,
  JSONRPCMessage,
  NotSentWhy,
  RequestId,
  Revision,
  TasksCancelRequest,
  TimeoutOptions,
  TrackOptions,
} from "../pkg/node/mcp_cancel.js";

/** Base class of every error mcp-cancel throws, with a stable `code` and the request id it is about. */
export class McpCancelError extends Error {
  constructor(message: string, code: string, requestId?: unknown);
  readonly code: string;
  readonly requestId: unknown;
}
/** A value passed by the caller is not acceptable (`ERR_INVALID_REQUEST_ID`, `ERR_INVALID_OPTION`, `ERR_INVALID_TRANSPORT`). */
export class InvalidArgumentError extends McpCancelError {}
/** The call is not acceptable in the session's state (`ERR_ALREADY_IN_FLIGHT`, `ERR_PROGRESS_TOKEN_IN_USE`, `ERR_HANDSHAKE_NOT_CANCELLABLE`, `ERR_REENTRANT_CALL`). */
export class UsageError extends McpCancelError {}

/**
 * Loads the WebAssembly module. Browsers and bundlers: `await init()` once before creating a
 * session (the `.wasm` is fetched from next to the module, or from `input`). Node: not needed
 * (the `.wasm` loads with the import); resolves at once.
 */
export function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** The subset of the MCP SDK `Transport` interface the guard needs (SDK 1.x `shared/transport`). */
export interface TransportLike {
  start(): Promise<void>;
  send(message: any, options?: any): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  sessionId?: string | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
  /** SDK 2.x: true for transports with a response stream per request (Streamable HTTP). */
  readonly hasPerRequestStream?: boolean;
}

/**
 * Options of `guardTransport()`: the session options, or a session of your own. `send` and
 * `closeStream` are the guard's; `transport` defaults to "streamable-http" when the inner
 * transport has per-request streams (SDK 2.x). Timeouts (`timeoutMs`,
 * `resetTimeoutOnProgress`, `maxTotalTimeoutMs`) apply to every request the SDK sends except
 * the handshake: on expiry the cancel goes out and the SDK gets a -32001 "Request timed out"
 * error response; `onTimeout` is called too.
 */
export interface GuardOptions extends Omit<CancellationSessionOptions, "send" | "closeStream"> {
  /** Use this session instead of creating one. */
  session?: CancellationSession;
}

/** A guarded transport: the inner transport's members, plus the session that guards it. */
export type GuardedTransport<T extends TransportLike> = T & {
  readonly session: CancellationSession;
  readonly inner: T;
  readonly protocolVersion: string | undefined;
};

/**
 * Wraps an MCP SDK `Transport` so that an unmodified SDK `Client` gets the cancellation
 * bookkeeping: cancels only for requests in flight and never for `initialize`, the reason
 * policy, late responses/progress after a cancel dropped, and our response to a request the
 * peer cancelled suppressed, task-augmented requests cancelled with one `tasks/cancel`
 * (deferred until the taskId is known), timeouts, and in 2026-07-28 over Streamable HTTP the
 * cancel as closing the request's stream. Works with SDK 1.x and 2.x. Spec:
 * §Cancellation of 2024-11-05 .. 2026-07-28, §Lifecycle "Timeouts", §Tasks (2025-11-25).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_TRANSPORT` when `transport` has no `start()`/`send()`.
 */
export function guardTransport<T extends TransportLike>(transport: T, options?: GuardOptions): GuardedTransport<T>;
