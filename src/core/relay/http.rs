//! The HTTP side of a relay's Streamable HTTP endpoint, before any message reaches the
//! [`Relay`](crate::core::Relay): which revision an HTTP request belongs to and what it needs
//! ([`classify_http`]: a 2025-era session, to open one, none for 2026-07-28, or a refusal),
//! the revisions served ([`http_session_revisions`], [`http_served_revisions`]), and the
//! answers of a 2025-era server made 2026-07-28 ones ([`modern_answer`], [`discover_result`]).
//!
//! Pure functions of their arguments: this part keeps no state. Its invariants:
//! - the body decides the revision, the headers are only checked against it (a proxy that
//!   drops a header must not change the revision);
//! - nothing refused here is forwarded: a [`HttpEntry::Refuse`] is answered with its HTTP
//!   status and a JSON-RPC error with `id: null`;
//! - [`http_session_revisions`] is a prefix of [`http_served_revisions`], oldest first, so the
//!   last of it is the newest revision with a handshake.

use crate::prelude::*;

use super::super::message::META_PROTOCOL_VERSION;
use super::super::method::Method;
use super::super::revision::Revision;

/// An HTTP request to a relay's Streamable HTTP endpoint (the relay's clients' side), as far
/// as [`classify_http`] needs it: what the host reads from its headers and its JSON body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HttpRequest<'a> {
    /// The HTTP method is `POST` (the only one that carries a message).
    pub post: bool,
    /// The `Mcp-Session-Id` header is present (2025-era sessions).
    pub session_id: bool,
    /// The `MCP-Protocol-Version` header.
    pub protocol_version: Option<&'a str>,
    /// The `Mcp-Method` header (2026-07-28, SEP-2243).
    pub mcp_method: Option<&'a str>,
    /// What the body is.
    pub body: HttpBody<'a>,
}

/// The JSON body of an [`HttpRequest`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpBody<'a> {
    /// No body (GET, DELETE).
    #[default]
    None,
    /// A JSON-RPC batch (an array).
    Batch,
    /// A response (a result or an error), to a request of the server's.
    Response,
    /// A request (`method` and `id`).
    Request {
        /// Its method.
        method: &'a str,
        /// Its `params._meta` envelope.
        envelope: Envelope<'a>,
    },
    /// A notification (`method`, no `id`).
    Notification {
        /// Its method.
        method: &'a str,
        /// Its `params._meta` envelope.
        envelope: Envelope<'a>,
    },
    /// Anything else (not a JSON-RPC message).
    Invalid,
}

/// The per-request envelope of a 2026-07-28 message: members of its `params._meta`
/// (schema 2026-07-28, `RequestMetaObject`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Envelope<'a> {
    /// `"io.modelcontextprotocol/protocolVersion"`: absent (`None`), a string, or present but
    /// not a string (`Some(None)`).
    pub protocol_version: Option<Option<&'a str>>,
    /// `"io.modelcontextprotocol/clientCapabilities"` is an object (required on requests).
    pub client_capabilities: bool,
}

/// What an HTTP request to the relay's Streamable HTTP endpoint is ([`classify_http`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpEntry {
    /// A request of a 2025-era session (a GET, a DELETE, a POST other than `initialize`): it
    /// carries `Mcp-Session-Id`; the host answers `404` when that session is not its own.
    Session,
    /// A 2025-era `initialize`: it opens a session (the host makes one).
    OpenSession,
    /// A 2026-07-28 message: it needs no session; its revision is its own (`version`).
    Modern {
        /// The revision named (the envelope's, or the header's for a notification).
        version: String,
    },
    /// Answer with HTTP `status` and this JSON-RPC error (`id: null`); nothing is forwarded.
    Refuse(HttpRefusal),
}

/// An HTTP answer with a JSON-RPC error ([`HttpEntry::Refuse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpRefusal {
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC error code.
    pub code: i32,
    /// The JSON-RPC error message.
    pub message: String,
    /// For [`HTTP_UNSUPPORTED_PROTOCOL_VERSION`]: the error's `data`, `{ supported, requested }`.
    pub unsupported: Option<(Vec<&'static str>, String)>,
}

/// `HEADER_MISMATCH` (schema 2026-07-28): a header disagrees with the body, or a required
/// header is missing; HTTP `400`.
pub const HTTP_HEADER_MISMATCH: i32 = -32020;
/// `UNSUPPORTED_PROTOCOL_VERSION` (schema 2026-07-28): the request's revision is not served;
/// HTTP `400`, `data: { supported, requested }`.
pub const HTTP_UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;

/// The revisions a relay serves over Streamable HTTP with sessions: those with the
/// `initialize` handshake from 2025-03-26, when the Streamable HTTP transport appeared
/// (2024-11-05 had HTTP+SSE).
#[must_use]
pub fn http_session_revisions() -> Vec<&'static str> {
    Revision::ALL
        .into_iter()
        .filter(|r| r.rules().handshake.is_some() && *r >= Revision::V2025_03_26)
        .map(Revision::as_str)
        .collect()
}

/// Which revision an HTTP request to a relay's Streamable HTTP endpoint belongs to and what
/// it needs: a 2025-era session ([`HttpEntry::Session`]), to open one
/// ([`HttpEntry::OpenSession`]), none (2026-07-28, [`HttpEntry::Modern`]), or a refusal.
/// `serve_modern`: whether the host serves 2026-07-28 requests; when not, they are refused
/// with [`HTTP_UNSUPPORTED_PROTOCOL_VERSION`] naming [`http_session_revisions`], so that a
/// client that can fall back to a 2025 revision (the MCP SDK 2.x client's `auto` mode) does.
/// A revision without a handshake that mcp-cancel does not know (a later date) is refused
/// the same way, naming [`http_served_revisions`].
///
/// The body decides (a proxy that drops a header must not change the revision), the headers
/// are checked against it. Spec, 2026-07-28 (schema `RequestMetaObject`, `HeaderMismatchError`,
/// `UnsupportedProtocolVersionError`; SEP-2243): every request names its version in
/// `params._meta["io.modelcontextprotocol/protocolVersion"]` with its
/// `"io.modelcontextprotocol/clientCapabilities"`; the `MCP-Protocol-Version` header MUST match
/// it (`400`), and with `Mcp-Method` is required on every request; an unsupported version is
/// `400` with `-32022`. Up to 2025-11-25 (Streamable HTTP, "Session Management"): a request
/// other than `initialize` carries the session's `Mcp-Session-Id` (`400` without one).
///
/// In order:
/// 1. a GET or DELETE, a batch, a response: a session's (`400` without `Mcp-Session-Id`);
/// 2. a request or notification whose envelope names a version: malformed (not a string, or
///    a request without `clientCapabilities`) → `400` `-32602`; a header that disagrees
///    (`MCP-Protocol-Version`, `Mcp-Method`) → `400` `-32020`; a revision with a handshake →
///    as 4; else on a request a missing `MCP-Protocol-Version` or `Mcp-Method` → `400`
///    `-32020`; else modern (or `-32022` when not served);
/// 3. no envelope and an `MCP-Protocol-Version` header naming a revision without a handshake:
///    a request → `400` `-32602` (its envelope is missing), a notification → modern;
///    `initialize` with such a header → `400` `-32020`;
/// 4. `initialize` → opens a session; anything else → a session's (`400` without one).
///
/// A modern request is [`HttpEntry::Modern`] when served and its revision known, else `400`
/// `-32022`. The `Mcp-Name` header (SEP-2243, for `tools/call`, `prompts/get`,
/// `resources/read`) is not checked.
#[must_use]
pub fn classify_http(request: &HttpRequest<'_>, serve_modern: bool) -> HttpEntry {
    let refuse = |status: u16, code: i32, message: String| {
        HttpEntry::Refuse(HttpRefusal { status, code, message, unsupported: None })
    };
    let session = || {
        if request.session_id {
            HttpEntry::Session
        } else {
            refuse(
                400,
                -32000,
                if serve_modern {
                    "Bad Request: no valid session (send initialize first, or name a 2026-07-28 revision in the request's _meta)".to_owned()
                } else {
                    "Bad Request: no valid session (send initialize first; this bridge serves MCP up to 2025-11-25 over HTTP)".to_owned()
                },
            )
        }
    };
    let is_modern = |version: &str| Revision::negotiated(version).0.rules().handshake.is_none();
    let header = request.protocol_version.map(str::trim);
    let mcp_method = request.mcp_method.map(str::trim);
    let (method, envelope, is_request) = match request.body {
        HttpBody::Request { method, envelope } => (method, envelope, true),
        HttpBody::Notification { method, envelope } => (method, envelope, false),
        // Not a message, or not one a revision without sessions sends on its own.
        HttpBody::None | HttpBody::Batch | HttpBody::Response | HttpBody::Invalid if !request.post => return session(),
        HttpBody::Invalid if !request.session_id => {
            return refuse(400, -32600, "Bad Request: the body is not a JSON-RPC message".to_owned())
        }
        _ => return session(),
    };
    let modern = |version: &str| {
        let known = Revision::parse(version).is_some();
        if serve_modern && known {
            HttpEntry::Modern { version: version.to_owned() }
        } else {
            let (supported, message) = if serve_modern {
                (http_served_revisions(), format!("Unsupported protocol version {version}"))
            } else {
                (
                    http_session_revisions(),
                    format!("Unsupported protocol version {version}: this bridge serves MCP up to 2025-11-25 over HTTP (initialize a session)"),
                )
            };
            HttpEntry::Refuse(HttpRefusal {
                status: 400,
                code: HTTP_UNSUPPORTED_PROTOCOL_VERSION,
                message,
                unsupported: Some((supported, version.to_owned())),
            })
        }
    };
    let initialize = method == Method::Initialize.name();
    match envelope.protocol_version {
        Some(None) => {
            return refuse(400, -32602, format!("Invalid _meta envelope: {} must be a string", META_PROTOCOL_VERSION))
        }
        Some(Some(claimed)) if is_modern(claimed) || !initialize => {
            if is_request && !envelope.client_capabilities && is_modern(claimed) {
                return refuse(
                    400,
                    -32602,
                    "Invalid _meta envelope: io.modelcontextprotocol/clientCapabilities is required".to_owned(),
                );
            }
            if let Some(h) = header.filter(|h| *h != claimed) {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!("Header mismatch: the body names protocol version {claimed} but the MCP-Protocol-Version header names {h}"),
                );
            }
            if let Some(m) = mcp_method.filter(|m| *m != method) {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!("Header mismatch: the body names method {method} but the Mcp-Method header names {m}"),
                );
            }
            if !is_modern(claimed) {
                return if initialize { HttpEntry::OpenSession } else { session() };
            }
            if is_request && header.is_none() {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!("Header mismatch: the body names protocol version {claimed} but the required MCP-Protocol-Version header is absent"),
                );
            }
            if is_request && mcp_method.is_none() {
                return refuse(
                    400,
                    HTTP_HEADER_MISMATCH,
                    format!(
                        "Header mismatch: the body names method {method} but the required Mcp-Method header is absent"
                    ),
                );
            }
            return modern(claimed);
        }
        _ => {}
    }
    if let Some(h) = header.filter(|h| is_modern(h)) {
        if initialize {
            return refuse(
                400,
                HTTP_HEADER_MISMATCH,
                format!("Header mismatch: initialize (the 2025 handshake) was sent with MCP-Protocol-Version {h}"),
            );
        }
        if is_request {
            return refuse(
                400,
                -32602,
                format!(
                    "Invalid params: the MCP-Protocol-Version header names {h}, but the request has no _meta envelope ({})",
                    META_PROTOCOL_VERSION
                ),
            );
        }
        if let Some(m) = mcp_method.filter(|m| *m != method) {
            return refuse(
                400,
                HTTP_HEADER_MISMATCH,
                format!("Header mismatch: the body names method {method} but the Mcp-Method header names {m}"),
            );
        }
        return modern(h);
    }
    if initialize && is_request {
        HttpEntry::OpenSession
    } else {
        session()
    }
}

/// The revisions a relay serves to clients over Streamable HTTP when it serves 2026-07-28
/// ([`classify_http`] with `serve_modern`): [`http_session_revisions`] and every known
/// revision without a handshake.
#[must_use]
pub fn http_served_revisions() -> Vec<&'static str> {
    let mut all = http_session_revisions();
    all.extend(Revision::ALL.into_iter().filter(|r| r.rules().handshake.is_none()).map(Revision::as_str));
    all
}

/// The methods whose 2026-07-28 results are cacheable (schema 2026-07-28: the results that
/// extend `CacheableResult`).
const CACHEABLE: [&str; 6] =
    ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];

/// The result of a 2026-07-28 client's `server/discover` ([`Forward::AnswerDiscover`](crate::core::Forward::AnswerDiscover)) from
/// the upstream's `initialize` result `handshake` (2025-era): the revisions served
/// ([`http_served_revisions`]), the server's capabilities (without `tasks`, which 2026-07-28
/// moved to an extension), its instructions, its `serverInfo` in
/// `_meta["io.modelcontextprotocol/serverInfo"]`, and the fields every 2026-07-28 result of
/// this kind carries (`modern_result`). Schema 2026-07-28 `DiscoverResult`.
#[must_use]
pub fn discover_result(handshake: &serde_json::Value) -> serde_json::Value {
    let mut result = serde_json::Map::new();
    result.insert("supportedVersions".into(), serde_json::json!(http_served_revisions()));
    let mut capabilities = handshake.get("capabilities").cloned().unwrap_or_else(|| serde_json::json!({}));
    if let Some(c) = capabilities.as_object_mut() {
        c.remove("tasks");
    }
    result.insert("capabilities".into(), capabilities);
    if let Some(instructions) = handshake.get("instructions").filter(|v| v.is_string()) {
        result.insert("instructions".into(), instructions.clone());
    }
    if let Some(info) = handshake.get("serverInfo") {
        result.insert("_meta".into(), serde_json::json!({ "io.modelcontextprotocol/serverInfo": info }));
    }
    modern_result("server/discover", &mut result);
    serde_json::Value::Object(result)
}

/// The answer a 2025-era server gave to a 2026-07-28 client's request of `method`, made a
/// 2026-07-28 one (schema 2026-07-28): a result gets `resultType: "complete"` (required: the
/// MCP SDK 2.x client rejects a result without it), a cacheable one (`CacheableResult`:
/// discovery, lists, `resources/read`) `ttlMs: 0` and `cacheScope: "private"` unless it has
/// them (a gateway does not know who may share it), and loses the members 2026-07-28 removed
/// (`execution` of each tool, `tasks` of capabilities: tasks are an extension); an error with
/// code -32002 (resource not found up to 2025-11-25) gets -32602. Anything else is unchanged.
#[must_use]
pub fn modern_answer(method: &str, mut message: serde_json::Value) -> serde_json::Value {
    if let Some(result) = message.get_mut("result").and_then(serde_json::Value::as_object_mut) {
        modern_result(method, result);
    } else if let Some(code) = message.get_mut("error").and_then(|e| e.get_mut("code")) {
        if code.as_i64() == Some(-32002) {
            *code = serde_json::json!(-32602);
        }
    }
    message
}

fn modern_result(method: &str, result: &mut serde_json::Map<String, serde_json::Value>) {
    result.entry("resultType").or_insert_with(|| serde_json::json!("complete"));
    if CACHEABLE.contains(&method) {
        result.entry("ttlMs").or_insert_with(|| serde_json::json!(0));
        result.entry("cacheScope").or_insert_with(|| serde_json::json!("private"));
    }
    if let Some(tools) = result.get_mut("tools").and_then(serde_json::Value::as_array_mut) {
        for tool in tools.iter_mut().filter_map(serde_json::Value::as_object_mut) {
            tool.remove("execution");
        }
    }
    if let Some(capabilities) = result.get_mut("capabilities").and_then(serde_json::Value::as_object_mut) {
        capabilities.remove("tasks");
    }
}
