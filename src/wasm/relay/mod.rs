//! [`RelayCore`]: the wasm class behind the package's JS relay (`createRelay`, the `bridge`
//! command). As [`SessionCore`]: the JS layer reads the members of a
//! message the core names and makes one call per message with scalars; every decision is
//! the core's [`Relay`]; its output is read with `poll()`, one plain object per item.
//!
//! The class's whole JS API is the one `impl` here; what a method converts is in a part:
//! - `codes`: the numbers `message()` returns and the tables naming them;
//! - `http`: `classifyHttp()`'s arguments decoded and its answer as a JS object;
//! - `output`: `poll()`'s objects.

mod codes;
mod http;
mod output;

use crate::prelude::*;
use wasm_bindgen::prelude::*;

use super::bindings::{constants_with, read_message, SessionCore};
use super::convert::{self, peer_value, tag};
use super::options;
use super::values::id_to_js;
use crate::core::{
    classify_http, Backward, Forward, HttpRequest, Link, Message, MessageFields as Fields, MethodName, Relay,
    RelayConfig, RequestId, Side, StreamClosed, TransportKind, Vanish,
};
use codes::{backward, constants, forward};

/// The relay core, for the package's JS relay (which documents the public API): not meant
/// to be used directly.
#[wasm_bindgen(js_name = RelayCore, skip_typescript)]
pub struct RelayCore {
    relay: Relay,
    timed: bool,
    forward_id: f64,
    forward_token: f64,
    forward_answer_id: JsValue,
    back_link: u32,
    back_id: JsValue,
    back_token: JsValue,
    back_related: JsValue,
}

#[wasm_bindgen(js_class = RelayCore)]
impl RelayCore {
    /// The session's tables ([`SessionCore::constants_json`]) and the relay's own: `relayForward`,
    /// `relayBackward` (the codes `message()` returns) and `unroutable` (`{ code, message }`),
    /// as JSON text, for the JS relay's reader.
    #[wasm_bindgen(js_name = constantsJson)]
    #[must_use]
    pub fn constants_json() -> String {
        constants_with(constants)
    }

    /// The session's tables alone ([`SessionCore::constants_json`]): what scripts/build.sh writes into
    /// pkg/web/mcp_cancel_tables.js for the session's JS (the session's `.wasm` does not
    /// carry it, see [`SessionCore::constants_json`]).
    #[wasm_bindgen(js_name = sessionConstantsJson)]
    #[must_use]
    pub fn session_constants_json() -> String {
        SessionCore::constants_json()
    }

    /// A relay. Its upstream session's settings as js/options.js `relaySettings` reads them
    /// from `createRelay()`'s options (as `SessionCore`'s: `flags` the `options::flag` bits,
    /// the capacities in requests, `max_reason_bytes` in bytes of UTF-8, the timeouts in ms,
    /// an absent number `NaN`, an absent string `undefined`; `events` whether `onEvent` was
    /// given), the relay's own read by the JS layer: `seed` a random number for the id maps,
    /// `max_in_flight` per client. Nothing is refused here (as `SessionCore`'s).
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)] // the settings, positional
    #[must_use]
    pub fn new(
        flags: u32,
        tombstone_capacity: f64,
        inbound_capacity: f64,
        max_reason_bytes: f64,
        timeout_ms: f64,
        max_total_ms: f64,
        generic_reason: Option<String>,
        timeout_reason: Option<String>,
        protocol_version: Option<String>,
        events: bool,
        seed: f64,
        max_in_flight: u32,
    ) -> RelayCore {
        let mut config = RelayConfig::default();
        config.upstream = options::Scalars {
            flags,
            tombstone_capacity,
            inbound_capacity,
            max_reason_bytes,
            timeout_ms,
            max_total_ms,
            generic_reason,
            timeout_reason,
            events,
        }
        .config();
        config.upstream.hash_seed = seed.to_bits();
        config.downstream.events = config.upstream.events;
        config.downstream.reason = config.upstream.reason.clone();
        config.downstream.hash_seed = seed.to_bits().rotate_left(17);
        config.max_in_flight_per_link = max_in_flight as usize;
        let timed = config.upstream.timeout.is_set();
        let mut relay = Relay::new(config);
        if let Some(version) = &protocol_version {
            // The upstream's revision, known up front.
            let link = relay.connect(TransportKind::Messages);
            relay.set_protocol_version(link, version);
            relay.disconnect(link);
        }
        RelayCore {
            relay,
            timed,
            forward_id: f64::NAN,
            forward_token: f64::NAN,
            forward_answer_id: JsValue::UNDEFINED,
            back_link: 0,
            back_id: JsValue::UNDEFINED,
            back_token: JsValue::UNDEFINED,
            back_related: JsValue::UNDEFINED,
        }
    }

    fn now(&self) -> u64 {
        if self.timed {
            convert::now_ms()
        } else {
            0
        }
    }

    /// What an HTTP request to the relay's Streamable HTTP endpoint is (`classify_http`), from
    /// what the JS layer read of it: `post` (its method is POST), `session_id` (it carries
    /// `Mcp-Session-Id`), the `MCP-Protocol-Version` and `Mcp-Method` headers, `body_kind`
    /// (`0` none, `1` batch, `2` response, `3` request, `4` notification, `5` not JSON-RPC),
    /// the body's `method`, its `params._meta` protocol version (`version_tag` `0` absent, `1`
    /// a string in `version`, `2` another value) and whether its `clientCapabilities` is an
    /// object; `serve_modern`: whether 2026-07-28 requests are served. A plain object:
    /// `{ entry: "session" | "open-session" }`, `{ entry: "modern", version }`, or
    /// `{ entry: "refuse", status, code, message, data? }` (`data`: `{ supported, requested }`).
    #[wasm_bindgen(js_name = classifyHttp)]
    #[allow(clippy::too_many_arguments)]
    #[must_use]
    pub fn classify_http(
        post: bool,
        session_id: bool,
        protocol_version: Option<String>,
        mcp_method: Option<String>,
        body_kind: u32,
        method: Option<String>,
        version_tag: u32,
        version: Option<String>,
        client_capabilities: bool,
        serve_modern: bool,
    ) -> JsValue {
        let method = method.as_deref().unwrap_or_default();
        let envelope = http::envelope(version_tag, version.as_deref(), client_capabilities);
        let request = HttpRequest {
            post,
            session_id,
            protocol_version: protocol_version.as_deref(),
            mcp_method: mcp_method.as_deref(),
            body: http::body(body_kind, method, envelope),
        };
        http::entry_to_js(classify_http(&request, serve_modern))
    }

    /// A new client; `streamable_http`: its transport is Streamable HTTP (in 2026-07-28 its
    /// cancel is closing its request's stream, see `streamClosed`). `resume_grace_ms` and
    /// `idle_ttl_ms` (ms; `NaN`: none) are its `Vanish` policy: how long a request whose
    /// stream closed waits to be resumed before it is cancelled upstream, and how long the
    /// client may stay silent before it is ended (an `end-client` output). The JS layer
    /// checks them (finite, at least 0); anything else here is none. `protocol_version`: the
    /// client is on that revision from the start (`Relay::connect_with_version`: a 2026-07-28
    /// request over HTTP, one client per request; no `Vanish` policy then).
    pub fn connect(
        &mut self,
        streamable_http: bool,
        resume_grace_ms: f64,
        idle_ttl_ms: f64,
        protocol_version: Option<String>,
    ) -> u32 {
        let kind = if streamable_http { TransportKind::StreamableHttp } else { TransportKind::Messages };
        if let Some(version) = protocol_version {
            let now = self.now();
            return self.relay.connect_with_version(kind, &version, now).0;
        }
        let ms = |v: f64| (v.is_finite() && v >= 0.0).then(|| v.min(9_007_199_254_740_991.0) as u64);
        let vanish = Vanish { resume_grace: ms(resume_grace_ms), idle_ttl: ms(idle_ttl_ms) };
        if vanish == Vanish::default() {
            return self.relay.connect(kind).0;
        }
        // The relay's deadlines need the clock from now on.
        self.timed = true;
        let now = self.now();
        self.relay.connect_with(kind, vanish, now).0
    }

    /// Whether client `link` takes the server's broadcasts and requests
    /// (`Relay::takes_broadcast`: not a 2026-07-28 client of one request).
    #[wasm_bindgen(js_name = takesBroadcast)]
    #[must_use]
    pub fn takes_broadcast(&self, link: u32) -> bool {
        self.relay.takes_broadcast(Link(link))
    }

    /// The `server/discover` result (JSON text) made from the upstream's handshake result
    /// (`handshake`, JSON text; `core::discover_result`); `"{}"`-based when it is not JSON.
    #[wasm_bindgen(js_name = discoverResult)]
    #[must_use]
    pub fn discover_result(handshake: &str) -> String {
        let value = serde_json::from_str(handshake).unwrap_or_else(|_| serde_json::json!({}));
        crate::core::discover_result(&value).to_string()
    }

    /// A response of the upstream's (JSON text) to a 2026-07-28 client's request of `method`,
    /// made a 2026-07-28 one (`core::modern_answer`); unchanged when it is not JSON.
    #[wasm_bindgen(js_name = modernAnswer)]
    #[must_use]
    pub fn modern_answer(method: &str, message: String) -> String {
        match serde_json::from_str(&message) {
            Ok(value) => crate::core::modern_answer(method, value).to_string(),
            Err(_) => message,
        }
    }

    /// The messages (JSON text, an array: the `initialize` request, then
    /// `notifications/initialized` once it is answered) of the handshake the relay makes
    /// itself (`core::relay_handshake`), with `client_info` (JSON text: `{ name, version }`).
    #[wasm_bindgen(js_name = relayHandshake)]
    #[must_use]
    pub fn relay_handshake(client_info: &str) -> String {
        let info = serde_json::from_str(client_info).unwrap_or_else(|_| serde_json::json!({}));
        serde_json::Value::from(crate::core::relay_handshake(info).to_vec()).to_string()
    }

    /// Client `link` was heard from without a message (an HTTP request of its session that
    /// carries none): its idle time to live counts from now.
    pub fn heard(&mut self, link: u32) {
        let now = self.now();
        self.relay.heard(Link(link), now);
    }

    /// Client `link` disconnected: its requests are cancelled upstream (see `poll`).
    pub fn disconnect(&mut self, link: u32) {
        self.relay.disconnect(Link(link));
    }

    /// The upstream connection closed: every request in flight fails (see `poll`).
    #[wasm_bindgen(js_name = upstreamClosed)]
    pub fn upstream_closed(&mut self) {
        self.relay.upstream_closed();
    }

    /// A JSON-RPC batch (an array) from client `link`, or from the server when `link` is −1:
    /// not relayed; a client's is answered (a `fail` output with `id: null`, see `poll`).
    pub fn batch(&mut self, link: i32) {
        let side = u32::try_from(link).map_or(Side::Upstream, |link| Side::Downstream(Link(link)));
        self.relay.handle_batch(side);
    }

    /// Client `link` closed the response stream of its request (tagged id): `0` nothing
    /// happens, `1` it is cancelled upstream now (its cancel in 2026-07-28 over Streamable
    /// HTTP, or a resume grace of 0), `2` it is cancelled when its resume grace ends unless
    /// `streamResumed` comes first (see `pollTimeout`).
    #[wasm_bindgen(js_name = streamClosed)]
    pub fn stream_closed(&mut self, link: u32, id_tag: u32, id_num: f64, id_str: Option<String>) -> u32 {
        let Ok(id) = owned_id(id_tag, id_num, id_str) else { return 0 };
        let now = self.now();
        match self.relay.handle_downstream_stream_closed(Link(link), &id, now) {
            StreamClosed::Cancelled => 1,
            StreamClosed::AwaitingResume { .. } => 2,
            _ => 0,
        }
    }

    /// A stream of client `link` resumed its request (tagged id) within its resume grace:
    /// `true` when it was waiting to be resumed (it is not cancelled).
    #[wasm_bindgen(js_name = streamResumed)]
    pub fn stream_resumed(&mut self, link: u32, id_tag: u32, id_num: f64, id_str: Option<String>) -> bool {
        owned_id(id_tag, id_num, id_str).is_ok_and(|id| self.relay.handle_downstream_stream_resumed(Link(link), &id))
    }

    /// The request sent upstream as `id` (a `forwardId`) could not be sent: its client gets
    /// an error (see `poll`).
    #[wasm_bindgen(js_name = upstreamSendFailed)]
    pub fn upstream_send_failed(&mut self, id: f64) {
        if id >= 1.0 && crate::core::float::is_integer(id) {
            self.relay.upstream_send_failed(id as u64);
        }
    }

    /// A message from client `link`, or from the server when `link` is −1 (as
    /// `SessionCore.message` with `how` 0: its method, id and the members `read`; `status` is
    /// `params.status`, `task` whether `params.task` is an object, `protocol_version` a
    /// request's `params._meta["io.modelcontextprotocol/protocolVersion"]`). Returns the
    /// `forward` code for a client's message, the `backward` code for the server's (a server's response with
    /// `method_code` −1: its result members come with `upstreamResponse` when asked). Never
    /// throws.
    #[allow(clippy::too_many_arguments)]
    pub fn message(
        &mut self,
        link: i32,
        method_code: i32,
        method_name: Option<String>,
        id_tag: u32,
        id_num: f64,
        id_str: Option<String>,
        read: u32,
        params_tag: u32,
        arg_tag: u32,
        arg_num: f64,
        arg_str: Option<String>,
        reason_tag: u32,
        reason: Option<String>,
        task_id: Option<String>,
        status: Option<String>,
        task: bool,
        protocol_version: Option<String>,
    ) -> u32 {
        let mut message = read_message(
            (method_code, method_name.as_deref()),
            (id_tag, id_num, id_str.as_deref()),
            read,
            params_tag,
            (arg_tag, arg_num, arg_str.as_deref()),
            (reason_tag, reason.as_deref()),
            task_id.as_deref(),
        );
        message.status = status.as_deref();
        message.task = task;
        message.protocol_version = protocol_version.as_deref();
        match u32::try_from(link) {
            Ok(link) => self.downstream_message(Link(link), &message),
            Err(_) => self.upstream_message(&message),
        }
    }

    fn downstream_message(&mut self, link: Link, message: &Message<'_>) -> u32 {
        let now = self.now();
        self.forward_id = f64::NAN;
        self.forward_token = f64::NAN;
        self.forward_answer_id = JsValue::UNDEFINED;
        match self.relay.handle_downstream(link, message, now) {
            Forward::Upstream { id, progress_token } => {
                self.forward_id = id.map_or(f64::NAN, |v| v as f64);
                self.forward_token = progress_token.map_or(f64::NAN, |v| v as f64);
                forward::UPSTREAM
            }
            Forward::AnswerHandshake => forward::ANSWER_HANDSHAKE,
            Forward::AnswerDiscover => forward::ANSWER_DISCOVER,
            Forward::AnswerServer { id } => {
                self.forward_answer_id = id_to_js(&id);
                forward::ANSWER_SERVER
            }
            Forward::Hold => forward::HOLD,
            Forward::NeedFields(f) => forward::NEED_FIELDS | (f.0 << 8),
            _ => forward::DROP,
        }
    }

    /// The upstream id to send the last forwarded request under (`NaN`: keep its id).
    #[wasm_bindgen(getter, js_name = forwardId)]
    pub fn forward_id(&self) -> f64 {
        self.forward_id
    }

    /// The server's id of the request the last response answers (`answerServer`).
    #[wasm_bindgen(getter, js_name = forwardAnswerId)]
    pub fn forward_answer_id(&self) -> JsValue {
        self.forward_answer_id.clone()
    }

    /// The upstream progress token of the last forwarded request (`NaN`: keep it).
    #[wasm_bindgen(getter, js_name = forwardToken)]
    pub fn forward_token(&self) -> f64 {
        self.forward_token
    }

    /// A response from the server with the result or error members the core asked for
    /// (as `SessionCore.response`).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = upstreamResponse)]
    pub fn upstream_response(
        &mut self,
        id_tag: u32,
        id_num: f64,
        id_str: Option<String>,
        read: u32,
        task_task_id: Option<String>,
        result_type: Option<String>,
        result_task_id: Option<String>,
        result_status: Option<String>,
        protocol_version: Option<String>,
        has_error: bool,
        error_code: f64,
    ) -> u32 {
        let info = convert::response_info(
            task_task_id,
            result_type,
            result_task_id,
            result_status,
            protocol_version,
            has_error,
            error_code,
        );
        let mut message = Message::new(peer_value(id_tag, id_num, id_str.as_deref()), MethodName::Absent);
        message.read = Fields(read);
        message.response = Some(&info);
        self.upstream_message(&message)
    }

    fn upstream_message(&mut self, message: &Message<'_>) -> u32 {
        let now = self.now();
        self.back_id = JsValue::UNDEFINED;
        self.back_token = JsValue::UNDEFINED;
        self.back_related = JsValue::UNDEFINED;
        match self.relay.handle_upstream(message, now) {
            Backward::Downstream { link, id, progress_token, related } => {
                self.back_link = link.0;
                self.back_id = id.as_ref().map_or(JsValue::UNDEFINED, id_to_js);
                self.back_token = progress_token.as_ref().map_or(JsValue::UNDEFINED, id_to_js);
                self.back_related = related.as_ref().map_or(JsValue::UNDEFINED, id_to_js);
                backward::DOWNSTREAM
            }
            Backward::Broadcast => backward::BROADCAST,
            Backward::Refuse => backward::REFUSE,
            Backward::NeedFields(f) => backward::NEED_FIELDS | (f.0 << 8),
            _ => backward::DROP,
        }
    }

    /// The client the last `upstream()` message goes to.
    #[wasm_bindgen(getter, js_name = backLink)]
    pub fn back_link(&self) -> u32 {
        self.back_link
    }

    /// The client's own id for the last response (`undefined`: keep the id).
    #[wasm_bindgen(getter, js_name = backId)]
    pub fn back_id(&self) -> JsValue {
        self.back_id.clone()
    }

    /// The client's own progress token for the last progress (`undefined`: keep it).
    #[wasm_bindgen(getter, js_name = backToken)]
    pub fn back_token(&self) -> JsValue {
        self.back_token.clone()
    }

    /// The client's request the last `upstream()` message belongs to (send it on that
    /// request's stream: the MCP SDK's `relatedRequestId`); `undefined` when none.
    #[wasm_bindgen(getter, js_name = backRelated)]
    pub fn back_related(&self) -> JsValue {
        self.back_related.clone()
    }

    /// When the next timeout is due, in ms of `performance.now()`; `NaN` when none.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> f64 {
        self.relay.poll_timeout().map_or(f64::NAN, |t| t as f64)
    }

    /// Time passed: expired requests are cancelled upstream and failed downstream; requests
    /// not resumed within their grace are cancelled upstream; silent clients are ended.
    #[wasm_bindgen(js_name = handleTimeout)]
    pub fn handle_timeout(&mut self) {
        let now = convert::now_ms();
        self.relay.handle_timeout(now);
    }

    /// Requests in flight through the relay.
    #[wasm_bindgen(getter, js_name = inFlight)]
    pub fn in_flight(&self) -> u32 {
        u32::try_from(self.relay.in_flight()).unwrap_or(u32::MAX)
    }

    /// The next thing to do (`undefined` when there is none), a plain object:
    /// - `{ type: "cancel", side: "upstream" | "downstream", link?, via: "notification" |
    ///   "stream-close" | "tasks-cancel", requestId, reason?, id?, taskId? }` — `id` is the
    ///   `tasks/cancel` request's own id;
    /// - `{ type: "fail", link, id, code, message }` — answer the client's request with this
    ///   error (`id: null`: its batch);
    /// - `{ type: "refuse", id, code, message }` — answer the server's request `id` with this error;
    /// - `{ type: "keep-handshake-result" }` — the server's response just passed in is the
    ///   shared handshake's: keep its `result` for `answer-handshake`;
    /// - `{ type: "answer-handshake", link, id }`;
    /// - `{ type: "upstream-version", version }`;
    /// - `{ type: "event", side, link?, event }` — `event` as `CancellationEvent`, or one of
    ///   the relay's own about a client that may have vanished (`side: "downstream"`):
    ///   `{ type: "stream-lost", requestId, upstreamId, graceMs }`,
    ///   `{ type: "stream-resumed", requestId, upstreamId? }`,
    ///   `{ type: "stream-not-resumed", requestId, upstreamId, graceMs, reason }`,
    ///   `{ type: "session-expired", ttlMs, requests: [{ requestId, upstreamId }], reason }`;
    /// - `{ type: "end-client", link }` — close client `link`'s connection (its session
    ///   expired), after the `fail` answers queued before it are sent; it is forgotten.
    pub fn poll(&mut self) -> JsValue {
        let Some(out) = self.relay.poll_output() else { return JsValue::UNDEFINED };
        output::output_to_js(out)
    }
}

/// A request id from a tagged member, taking the string (no copy).
#[inline]
fn owned_id(tag: u32, number: f64, string: Option<String>) -> Result<RequestId, crate::core::InvalidRequestId> {
    match (tag, string) {
        (tag::NUMBER, _) => RequestId::from_f64(number),
        (tag::STRING, Some(s)) => Ok(RequestId::String(s)),
        (tag, s) => peer_value(tag, number, s.as_deref()).to_request_id(),
    }
}
