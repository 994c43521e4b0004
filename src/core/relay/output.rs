//! What the relay tells its host to do: with each message ([`Forward`] for a client's,
//! [`Backward`] for the server's), and in order after every call ([`RelayOutput`]), with the
//! errors it answers requests with itself ([`Failure`]). Types only: the relay decides them.

use crate::prelude::*;

// The relay's items these docs link to; the relay uses this module, never the other way.
#[cfg(doc)]
use super::super::session::Config;
#[cfg(doc)]
use super::{http::discover_result, vanish::Vanish};
#[cfg(doc)]
use crate::core::{Relay, RelayConfig};

use super::super::event::Event;
use super::super::id::RequestId;
use super::super::method::Fields as MessageFields;
use super::super::output::Transmit;
use super::ids::Link;
use super::vanish::ClientEvent;

/// What to do with a message from a client ([`Relay::handle_downstream`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum Forward {
    /// Send nothing: a cancel (the relay sends the upstream one itself, see
    /// [`Relay::poll_output`]), a late response, a second `notifications/initialized`, a
    /// request refused (its error is in the output).
    Drop,
    /// Send it upstream, with `id` (a request's) and `params._meta.progressToken` replaced
    /// by these numbers when given; everything else as it is.
    Upstream {
        /// The upstream id of the request.
        id: Option<u64>,
        /// The upstream progress token of the request.
        progress_token: Option<u64>,
    },
    /// Answer this `initialize` with the upstream's handshake result (its `result`, with
    /// this request's id).
    AnswerHandshake,
    /// Hold this `initialize`: [`RelayOutput::AnswerHandshake`] (or a
    /// [`RelayOutput::Fail`]) answers it when the upstream handshake completes.
    Hold,
    /// Answer this `server/discover` of a client on a revision without a handshake
    /// (2026-07-28) with [`discover_result`] of the upstream's handshake result (its
    /// `result`, with this request's id). The upstream speaks a revision with a handshake, so
    /// the relay answers for it.
    AnswerDiscover,
    /// Send this response (a client's answer to a request of the server's) upstream with its
    /// `id` replaced by this one: the server's id of the request (the client saw the relay's,
    /// see [`Backward::Downstream`]).
    AnswerServer {
        /// The server's id of the request answered.
        id: RequestId,
    },
    /// Read these members too and call again with the same message.
    NeedFields(MessageFields),
}

/// What to do with a message from the server ([`Relay::handle_upstream`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
#[non_exhaustive]
pub enum Backward {
    /// Send nothing: a late response or progress, a cancel (translated in the output), the
    /// answer to the relay's own `tasks/cancel`, or a response nobody waits for any more.
    Drop,
    /// Send it to client `link`, with its `id` (a response's; a request's of the server's: a
    /// number the relay chose, unique among the server's requests, from 1) or
    /// `params.progressToken` (a progress notification's) replaced by these when given.
    Downstream {
        /// The client.
        link: Link,
        /// The client's own id of the request this answers.
        id: Option<RequestId>,
        /// The client's own progress token.
        progress_token: Option<RequestId>,
        /// The client's request this message belongs to (a response's, a progress'): a
        /// transport with a stream per request sends it on that request's stream.
        related: Option<RequestId>,
    },
    /// Send it to every client (a notification of the server's: logging, list changes, …).
    Broadcast,
    /// A request of the server's that no single client can take (none is connected, or
    /// several are and not exactly one of them has requests in flight, see
    /// [`Relay::handle_upstream`]): answer it upstream with [`Failure::Unroutable`].
    Refuse,
    /// Read these members too and call again with the same message.
    NeedFields(MessageFields),
}

/// Why the relay answers a request with an error itself (a client's, or with
/// [`Failure::ClientGone`] and [`Failure::Unroutable`] the server's). [`Failure::Timeout`]
/// is also the error `guardTransport` gives the MCP SDK for a request that timed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// The request timed out upstream (it was cancelled there): -32001, the MCP SDKs'
    /// `RequestTimeout` (the spec leaves the code to the implementation: 2025-03-26 and
    /// later, Lifecycle §Timeouts; 2026-07-28, Cancellation).
    Timeout,
    /// The upstream connection closed with the request in flight: -32000.
    UpstreamClosed,
    /// The client has [`RelayConfig::max_in_flight_per_link`] requests in flight: -32000.
    TooManyRequests,
    /// The upstream handshake this `initialize` waited for failed: -32000.
    HandshakeFailed,
    /// The request could not be sent to the server (its transport refused it): -32000.
    SendFailed,
    /// A JSON-RPC batch (JSON-RPC 2.0 §6; in MCP 2025-03-26 only), refused whatever the
    /// revision, as its ids could not be mapped one by one and answered as one batch: -32600
    /// (JSON-RPC "Invalid Request"), `id: null`.
    Batch,
    /// The server's request went to a client that disconnected: -32000.
    ClientGone,
    /// The server's request was sent while it handled a client's request (sampling,
    /// elicitation, …), and that client cancelled its request (or it timed out, or its
    /// stream was not resumed): nobody will answer it any more: -32000.
    CallCancelled,
    /// The server's request cannot go to a single client (none is connected, or several are
    /// and not exactly one of them has requests in flight): -32000.
    Unroutable,
    /// The client's session ended: it sent nothing for its idle time to live
    /// ([`Vanish::idle_ttl`]); the request was cancelled upstream: -32000.
    SessionExpired,
}

impl Failure {
    /// The JSON-RPC error code of the failure.
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            Self::Timeout => -32001,
            Self::Batch => -32600,
            Self::UpstreamClosed
            | Self::TooManyRequests
            | Self::HandshakeFailed
            | Self::SendFailed
            | Self::ClientGone
            | Self::CallCancelled
            | Self::Unroutable
            | Self::SessionExpired => -32000,
        }
    }

    /// The JSON-RPC error message of the failure.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            Self::Timeout => "Request timed out",
            Self::UpstreamClosed => "The upstream connection closed",
            Self::TooManyRequests => "Too many requests in flight through the relay",
            Self::HandshakeFailed => "The upstream handshake failed",
            Self::SendFailed => "The request could not be sent to the server",
            Self::Batch => "mcp-cancel relay: JSON-RPC batches are not relayed",
            Self::ClientGone => "mcp-cancel relay: the client this request went to disconnected",
            Self::CallCancelled => {
                "mcp-cancel relay: the client's request this request was sent for is over (cancelled); the client will not answer"
            }
            Self::Unroutable => "mcp-cancel relay: no single client can take this request",
            Self::SessionExpired => {
                "mcp-cancel relay: the session expired (no request within its time to live); the request was cancelled"
            }
        }
    }
}

/// Which side of the relay an event or a transmit belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Side {
    /// The upstream connection.
    Upstream,
    /// A downstream connection.
    Downstream(Link),
}

/// Something the host must do, from [`Relay::poll_output`], in order.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RelayOutput {
    /// Put this cancel on `side` (a notification, a stream close or a `tasks/cancel`). Its
    /// request id is the one of that side (the relay's upstream id, or the relay's id of a
    /// request of the server's forwarded to a client).
    Transmit(Side, Transmit),
    /// Answer client `link`'s request `id` with this failure (an error response).
    Fail {
        /// The client.
        link: Link,
        /// Its request.
        id: RequestId,
        /// Why.
        failure: Failure,
    },
    /// Answer the server's request `id` with this failure: the client it went to disconnected
    /// ([`Failure::ClientGone`]), or the client's request it was sent for is over
    /// ([`Failure::CallCancelled`]).
    Refuse {
        /// The server's request.
        id: RequestId,
        /// Why.
        failure: Failure,
    },
    /// Answer client `link`'s JSON-RPC batch with [`Failure::Batch`] (an error response with
    /// `id: null`, JSON-RPC 2.0 §5).
    RefuseBatch(Link),
    /// The server's response being handled ([`Relay::handle_upstream`]) is the result of
    /// the shared handshake: keep its `result`, to answer every later client's `initialize`
    /// with ([`RelayOutput::AnswerHandshake`], [`Forward::AnswerHandshake`]).
    KeepHandshakeResult,
    /// Answer client `link`'s held `initialize` `id` with the upstream's handshake result.
    AnswerHandshake {
        /// The client.
        link: Link,
        /// Its `initialize` request.
        id: RequestId,
    },
    /// The upstream revision is now known: a host whose upstream transport needs it (the
    /// MCP SDK's `setProtocolVersion`) is told here.
    UpstreamVersion(String),
    /// An event of one side (only with [`Config::events`] on that side).
    Event(Side, Event),
    /// Something the relay did about client `link` vanishing (only with [`Config::events`]
    /// on the downstream side, [`RelayConfig::downstream`]).
    ClientEvent(Link, ClientEvent),
    /// End client `link`'s connection (for Streamable HTTP, its session: later requests
    /// with its session id get 404): it was not heard from for its [`Vanish::idle_ttl`].
    /// The relay has forgotten the link already; the [`RelayOutput::Fail`]s queued just
    /// before this (after the upstream cancels) are its requests' answers, to be sent
    /// before the connection closes.
    EndClient(Link),
}
