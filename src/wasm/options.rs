//! The options of `new CancellationSession(options)` and of `track(id, method, options)`,
//! read strictly: a member of the wrong type, or one the API does not have, is an
//! `InvalidArgumentError` (`ERR_INVALID_OPTION`) that names it — a typo must not become a
//! timeout that never fires. Timeouts use the MCP TypeScript SDK's names and meanings
//! (`timeout`, `maxTotalTimeout`, `resetTimeoutOnProgress`, in ms).

use js_sys::{Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::convert::{get, AbortSignal};
use super::errors::invalid_argument;
use crate::core::{Config, Millis, ReasonPolicy, Role, Timeout, TransportKind};

/// The callbacks of a session.
#[derive(Clone, Default)]
pub struct Callbacks {
    /// `send(message)`: every cancel message the session makes.
    pub send: Option<Function>,
    /// `closeStream(requestId)`: the 2026-07-28 Streamable HTTP cancel.
    pub close_stream: Option<Function>,
    /// `onTimeout(requestId, error)`.
    pub on_timeout: Option<Function>,
    /// `onEvent(event)`.
    pub on_event: Option<Function>,
    /// The JS layer's helpers: message builders, and the JS objects of watched requests.
    pub messages: super::convert::JsHooks,
}

/// A session's settings, read from its options object.
pub struct SessionOptions {
    /// The core's settings.
    pub config: Config,
    /// The callbacks.
    pub callbacks: Callbacks,
    /// `protocolVersion`, when given.
    pub protocol_version: Option<String>,
}

/// The settings of a session, in `CancellationSession`'s options and `createRelay`'s (for
/// its upstream session).
const SETTINGS_KEYS: [&str; 12] = [
    "onEvent",
    "protocolVersion",
    "transport",
    "tombstoneCapacity",
    "inboundCapacity",
    "maxReasonBytes",
    "exposeErrorReasons",
    "genericReason",
    "timeoutReason",
    "timeout",
    "maxTotalTimeout",
    "resetTimeoutOnProgress",
];

/// `CancellationSession`'s own options.
const SESSION_KEYS: [&str; 4] = ["send", "closeStream", "onTimeout", "role"];

const TRACK_KEYS: [&str; 5] = ["signal", "params", "timeout", "maxTotalTimeout", "resetTimeoutOnProgress"];

/// Names of 0.1 that changed, with what to use instead.
const RENAMED: [(&str, &str); 3] =
    [("timeoutMs", "timeout"), ("maxTotalTimeoutMs", "maxTotalTimeout"), ("logger", "onEvent")];

/// Reads the options of `new CancellationSession(options)` (`undefined`/`null`: defaults).
///
/// # Errors
/// `InvalidArgumentError` `ERR_INVALID_OPTION` naming the member.
pub fn session(options: &JsValue) -> Result<SessionOptions, JsValue> {
    check_keys(options, &[&SESSION_KEYS, &SETTINGS_KEYS], "CancellationSession")?;
    settings(options, "CancellationSession")
}

/// `createRelay()`'s own options (read by the JS layer).
#[cfg(feature = "relay")]
const RELAY_KEYS: [&str; 4] = ["upstream", "maxInFlightPerClient", "onUpstreamClose", "onError"];

/// Reads the options of `createRelay(options)`: its upstream session's settings.
///
/// # Errors
/// `InvalidArgumentError` `ERR_INVALID_OPTION` naming the member.
#[cfg(feature = "relay")]
pub fn relay(options: &JsValue) -> Result<SessionOptions, JsValue> {
    check_keys(options, &[&RELAY_KEYS, &SETTINGS_KEYS], "createRelay")?;
    settings(options, "createRelay")
}

/// The session settings in `options` (whose keys were checked), for `what`'s messages.
fn settings(options: &JsValue, what: &str) -> Result<SessionOptions, JsValue> {
    let defaults = ReasonPolicy::default();
    let transport = match string(options, "transport", what)?.as_deref() {
        None | Some("stdio") => TransportKind::Messages,
        Some("streamable-http") => TransportKind::StreamableHttp,
        Some(_) => return Err(wrong(what, "transport", "\"stdio\" or \"streamable-http\"", options)),
    };
    let role = match string(options, "role", what)?.as_deref() {
        None | Some("client") => Role::Client,
        Some("server") => Role::Server,
        Some(_) => return Err(wrong(what, "role", "\"client\" or \"server\"", options)),
    };
    let config = Config {
        role,
        tombstone_capacity: count(options, "tombstoneCapacity", 1024, what)?,
        inbound_capacity: count(options, "inboundCapacity", 4096, what)?,
        reason: ReasonPolicy {
            max_bytes: count_to(options, "maxReasonBytes", defaults.max_bytes, MAX_REASON_BYTES, what)?,
            expose_error_reasons: boolean(options, "exposeErrorReasons", what)?
                .unwrap_or(defaults.expose_error_reasons),
            generic_reason: string(options, "genericReason", what)?.unwrap_or(defaults.generic_reason),
            timeout_reason: string(options, "timeoutReason", what)?.unwrap_or(defaults.timeout_reason),
        },
        transport,
        timeout: timeout(options, what)?.unwrap_or(Timeout::NONE),
        events: !get(options, "onEvent").is_undefined(),
        ..Config::default()
    };
    Ok(SessionOptions {
        config,
        callbacks: Callbacks {
            send: function(options, "send", what)?,
            close_stream: function(options, "closeStream", what)?,
            on_timeout: function(options, "onTimeout", what)?,
            on_event: function(options, "onEvent", what)?,
            messages: super::convert::JsHooks::default(),
        },
        protocol_version: string(options, "protocolVersion", what)?,
    })
}

/// The options of `track()`.
pub struct TrackOptions {
    /// `signal`, when given (not `undefined`/`null`).
    pub signal: Option<AbortSignal>,
    /// `params` (`undefined` when not given).
    pub params: JsValue,
    /// The request's own timeouts; `None`: the session's.
    pub timeout: Option<Timeout>,
}

/// Reads the options of `track(id, method, options)`.
///
/// # Errors
/// `InvalidArgumentError` `ERR_INVALID_OPTION` naming the member.
pub fn track(options: &JsValue) -> Result<TrackOptions, JsValue> {
    check_keys(options, &[&TRACK_KEYS], "track()")?;
    let signal = get(options, "signal");
    let signal = if signal.is_undefined() || signal.is_null() {
        None
    } else if signal.is_object() && !get(&signal, "addEventListener").is_undefined() {
        Some(signal.unchecked_into::<AbortSignal>())
    } else {
        return Err(wrong("track()", "signal", "an AbortSignal", options));
    };
    Ok(TrackOptions { signal, params: get(options, "params"), timeout: timeout(options, "track()")? })
}

/// Refuses an options value that is not an object, and any member not in `known`.
fn check_keys(options: &JsValue, known: &[&[&str]], what: &str) -> Result<(), JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(());
    }
    if !options.is_object() || js_sys::Array::is_array(options) {
        return Err(invalid_argument(
            &[what, ": options must be an object, undefined or null"].concat(),
            "ERR_INVALID_OPTION",
            options,
        ));
    }
    let names = Object::keys(options.unchecked_ref::<Object>());
    for i in 0..names.length() {
        let Some(name) = super::convert::element(&names, f64::from(i)).as_string() else { continue };
        if known.iter().any(|names| names.contains(&name.as_str())) {
            continue;
        }
        let mut message = [what, ": unknown option `", &name, "`"].concat();
        if let Some((_, new)) = RENAMED.iter().find(|(old, _)| *old == name) {
            message.push_str(&[" (renamed `", new, "` in 1.0)"].concat());
        }
        message.push_str("; known options:");
        for (i, option) in known.iter().flat_map(|names| names.iter()).enumerate() {
            message.push_str(if i == 0 { " " } else { ", " });
            message.push_str(option);
        }
        return Err(invalid_argument(&message, "ERR_INVALID_OPTION", &JsValue::from_str(&name)));
    }
    Ok(())
}

/// `timeout`, `maxTotalTimeout` and `resetTimeoutOnProgress`; `None` when none is given.
fn timeout(options: &JsValue, what: &str) -> Result<Option<Timeout>, JsValue> {
    let timeout_ms = millis(options, "timeout", what)?;
    let max_total_ms = millis(options, "maxTotalTimeout", what)?;
    let reset = boolean(options, "resetTimeoutOnProgress", what)?;
    if timeout_ms.is_none() && max_total_ms.is_none() && reset.is_none() {
        return Ok(None);
    }
    Ok(Some(Timeout { timeout_ms, reset_on_progress: reset.unwrap_or(false), max_total_ms }))
}

/// A duration in ms: any finite non-negative number (a fraction is rounded up).
fn millis(options: &JsValue, name: &'static str, what: &str) -> Result<Option<Millis>, JsValue> {
    let v = get(options, name);
    if v.is_undefined() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 => Ok(Some(n.ceil().min(9_007_199_254_740_991.0) as Millis)),
        _ => Err(wrong(what, name, "a finite non-negative number of milliseconds", options)),
    }
}

/// The largest `maxReasonBytes`, in bytes of UTF-8: a reason, ours or the peer's, is never
/// longer on the wire or in an event, so the JS reader never copies more of a peer's
/// reason into wasm memory than this many UTF-16 code units.
pub const MAX_REASON_BYTES: u32 = 4096;

/// A non-negative integer option no greater than `max` (`u32::MAX`: any), `default` when
/// absent.
fn count_to(options: &JsValue, name: &'static str, default: usize, max: u32, what: &str) -> Result<usize, JsValue> {
    let v = get(options, name);
    match v.as_f64() {
        _ if v.is_undefined() => Ok(default),
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= f64::from(max) => Ok(n as usize),
        _ if max == u32::MAX => Err(wrong(what, name, "a non-negative integer", options)),
        _ => Err(wrong(what, name, &["an integer from 0 to ", itoa::Buffer::new().format(max)].concat(), options)),
    }
}

fn count(options: &JsValue, name: &'static str, default: usize, what: &str) -> Result<usize, JsValue> {
    count_to(options, name, default, u32::MAX, what)
}

fn boolean(options: &JsValue, name: &'static str, what: &str) -> Result<Option<bool>, JsValue> {
    let v = get(options, name);
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_bool().map(Some).ok_or_else(|| wrong(what, name, "a boolean", options))
}

fn string(options: &JsValue, name: &'static str, what: &str) -> Result<Option<String>, JsValue> {
    let v = get(options, name);
    if v.is_undefined() {
        return Ok(None);
    }
    v.as_string().map(Some).ok_or_else(|| wrong(what, name, "a string", options))
}

fn function(options: &JsValue, name: &'static str, what: &str) -> Result<Option<Function>, JsValue> {
    let v = get(options, name);
    if v.is_undefined() {
        return Ok(None);
    }
    v.dyn_into::<Function>().map(Some).map_err(|_| wrong(what, name, "a function", options))
}

fn wrong(what: &str, name: &'static str, expected: &str, options: &JsValue) -> JsValue {
    invalid_argument(
        &[what, ": option `", name, "` must be ", expected].concat(),
        "ERR_INVALID_OPTION",
        &get(options, name),
    )
}
