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
}

/** Options of `guardTransport()`: the session options (minus `send`), or a session of your own. */
export interface GuardOptions extends Omit<CancellationSessionOptions, "send"> {
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
 * peer cancelled suppressed. Spec: `notifications/cancelled`, 2024-11-05 .. 2025-06-18.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_TRANSPORT` when `transport` has no `start()`/`send()`.
 */
export function guardTransport<T extends TransportLike>(transport: T, options?: GuardOptions): GuardedTransport<T>;
