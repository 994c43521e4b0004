// Error classes of mcp-cancel. Every error the package throws is one of these, with a
// stable `code` and the `requestId` (or offending value) it is about.

/** Base class of every error mcp-cancel throws. */
export class McpCancelError extends Error {
  // Each class says its own name: the Node build is minified (scripts/bundle-node.mjs), which
  // renames classes, and `name` is part of the API (`error.name === "UsageError"`).
  static name = "McpCancelError";

  /**
   * @param {string} message
   * @param {string} code stable machine-readable code, e.g. "ERR_INVALID_REQUEST_ID"
   * @param {unknown} [requestId] the request id (or offending value) the error is about
   */
  constructor(message, code, requestId) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.requestId = requestId;
  }
}

/** A value passed by the caller is not acceptable: `ERR_INVALID_REQUEST_ID`, `ERR_INVALID_OPTION`, `ERR_INVALID_TRANSPORT`. */
export class InvalidArgumentError extends McpCancelError {
  static name = "InvalidArgumentError";
}

/** The call is not acceptable in the session's state: `ERR_ALREADY_IN_FLIGHT`, `ERR_PROGRESS_TOKEN_IN_USE`, `ERR_HANDSHAKE_NOT_CANCELLABLE`, `ERR_SEND_REQUIRED`, `ERR_CLOSED`, `ERR_NOT_INITIALIZED`, `ERR_NODE_ONLY`. */
export class UsageError extends McpCancelError {
  static name = "UsageError";
}
