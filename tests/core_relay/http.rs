//! The HTTP side: the classification of a request to the Streamable HTTP endpoint, and a
//! 2026-07-28 client of one request beside a 2025-era server (discovery, answers made
//! 2026-07-28 ones, its cancel by closing its stream).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

/// A POST of `body` with these headers (`MCP-Protocol-Version`, `Mcp-Method`) and no session.
fn post<'a>(body: HttpBody<'a>, version: Option<&'a str>, method: Option<&'a str>) -> HttpRequest<'a> {
    HttpRequest { post: true, session_id: false, protocol_version: version, mcp_method: method, body }
}

/// A 2026-07-28 envelope naming `version` (with `clientCapabilities`).
fn envelope(version: &str) -> Envelope<'_> {
    Envelope { protocol_version: Some(Some(version)), client_capabilities: true }
}

fn refused(entry: &HttpEntry) -> (u16, i32) {
    match entry {
        HttpEntry::Refuse(HttpRefusal { status, code, .. }) => (*status, *code),
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn an_http_request_is_classified_by_its_body_and_its_headers_are_checked_against_it() {
    let none = Envelope::default();
    let call = |envelope| HttpBody::Request { method: "tools/call", envelope };
    // 2025-era: initialize opens a session; everything else needs one.
    let init = HttpBody::Request { method: "initialize", envelope: none };
    assert_eq!(classify_http(&post(init, None, None), true), HttpEntry::OpenSession);
    assert_eq!(classify_http(&post(init, Some("2025-11-25"), None), true), HttpEntry::OpenSession);
    assert_eq!(refused(&classify_http(&post(call(none), None, None), true)), (400, -32000));
    let with_session = HttpRequest { session_id: true, ..post(call(none), Some("2025-11-25"), None) };
    assert_eq!(classify_http(&with_session, true), HttpEntry::Session);
    for body in [HttpBody::None, HttpBody::Batch, HttpBody::Response] {
        let get = HttpRequest { post: body != HttpBody::None, session_id: true, ..post(body, None, None) };
        assert_eq!(classify_http(&get, true), HttpEntry::Session);
    }
    assert_eq!(refused(&classify_http(&post(HttpBody::Invalid, None, None), true)), (400, -32600));
    // 2026-07-28: the envelope decides; no session needed.
    let modern = post(call(envelope("2026-07-28")), Some("2026-07-28"), Some("tools/call"));
    assert_eq!(classify_http(&modern, true), HttpEntry::Modern { version: "2026-07-28".into() });
    // A session id does not make it a session's.
    assert_eq!(
        classify_http(&HttpRequest { session_id: true, ..modern }, true),
        HttpEntry::Modern { version: "2026-07-28".into() }
    );
    // Not served: -32022 with the revisions that are, so that a client can fall back.
    match classify_http(&modern, false) {
        HttpEntry::Refuse(HttpRefusal {
            status: 400, code: -32022, unsupported: Some((supported, requested)), ..
        }) => {
            assert_eq!(supported, vec!["2025-03-26", "2025-06-18", "2025-11-25"]);
            assert_eq!(requested, "2026-07-28");
        }
        other => panic!("{other:?}"),
    }
    // Headers that disagree, or are missing on a request: -32020.
    for (version, method) in [
        (Some("2025-11-25"), Some("tools/call")),
        (Some("2026-07-28"), Some("tools/list")),
        (None, Some("tools/call")),
        (Some("2026-07-28"), None),
    ] {
        let r = post(call(envelope("2026-07-28")), version, method);
        assert_eq!(refused(&classify_http(&r, true)), (400, -32020), "{version:?} {method:?}");
    }
    // A malformed envelope, or a modern header with none: -32602.
    let bad = Envelope { protocol_version: Some(None), client_capabilities: true };
    assert_eq!(refused(&classify_http(&post(call(bad), None, None), true)), (400, -32602));
    let no_caps = Envelope { protocol_version: Some(Some("2026-07-28")), client_capabilities: false };
    assert_eq!(
        refused(&classify_http(&post(call(no_caps), Some("2026-07-28"), Some("tools/call")), true)),
        (400, -32602)
    );
    assert_eq!(refused(&classify_http(&post(call(none), Some("2026-07-28"), Some("tools/call")), true)), (400, -32602));
    assert_eq!(refused(&classify_http(&post(init, Some("2026-07-28"), None), true)), (400, -32020));
    // A later revision without a handshake is modern too, but not one served: -32022 naming those that are.
    let later = post(call(envelope("2027-01-01")), Some("2027-01-01"), Some("tools/call"));
    match classify_http(&later, true) {
        HttpEntry::Refuse(HttpRefusal {
            status: 400, code: -32022, unsupported: Some((supported, requested)), ..
        }) => {
            assert_eq!(supported, vec!["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);
            assert_eq!(requested, "2027-01-01");
        }
        other => panic!("{other:?}"),
    }
    // An envelope naming a 2025 revision is not modern.
    let old = post(call(envelope("2025-11-25")), None, None);
    assert_eq!(refused(&classify_http(&old, true)), (400, -32000), "a 2025 request without a session");
    // A notification: its envelope, or the header alone (notifications need no clientCapabilities).
    let note = |envelope| HttpBody::Notification { method: "notifications/cancelled", envelope };
    let only_version = Envelope { protocol_version: Some(Some("2026-07-28")), client_capabilities: false };
    assert_eq!(
        classify_http(&post(note(only_version), None, None), true),
        HttpEntry::Modern { version: "2026-07-28".into() }
    );
    assert_eq!(
        classify_http(&post(note(none), Some("2026-07-28"), None), true),
        HttpEntry::Modern { version: "2026-07-28".into() }
    );
    assert_eq!(refused(&classify_http(&post(note(none), None, None), true)), (400, -32000));
}

/// A relay whose upstream (2025-11-25) made its handshake through the relay's own client
/// (`relay_handshake`), and the `initialize` result it keeps.
fn handshaken() -> Relay {
    let mut r = Relay::new(RelayConfig::default());
    let own = r.connect(TransportKind::Messages);
    let [init, initialized] = relay_handshake(json!({ "name": "mcp-cancel bridge", "version": "1.0.0" }));
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["capabilities"], json!({}));
    let u = forwarded_id(&down(&mut r, own, &init));
    let answer = handshake_answer(u);
    assert!(matches!(up(&mut r, &answer), Backward::Downstream { .. }));
    assert_eq!(down(&mut r, own, &initialized), Forward::Upstream { id: None, progress_token: None });
    r.disconnect(own);
    let _ = outputs(&mut r);
    r
}

/// A 2026-07-28 request with its envelope.
fn modern_call(id: Value, method: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": { "name": "slow", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    } } })
}

#[test]
fn a_2026_07_28_client_of_one_request_beside_a_2025_server_discovers_calls_and_cancels_by_closing_its_stream() {
    let mut r = handshaken();
    let m = r.connect_with_version(TransportKind::StreamableHttp, "2026-07-28", 0);
    assert_eq!(r.downstream(m).unwrap().revision(), Revision::parse("2026-07-28"));
    assert_eq!(r.upstream().revision(), Revision::parse("2025-11-25"), "the upstream keeps its own");
    // Its discovery is the relay's to answer; nothing goes up.
    assert_eq!(down(&mut r, m, &modern_call(json!(1), "server/discover")), Forward::AnswerDiscover);
    assert_eq!(outputs(&mut r), vec![]);
    // Its call goes up; closing its stream is its cancel: a notification upstream (stdio, 2025-11-25).
    let u = forwarded_id(&down(&mut r, m, &modern_call(json!(1), "tools/call")));
    assert_eq!(r.handle_downstream_stream_closed(m, &n(1), 0), StreamClosed::Cancelled);
    assert_eq!(outputs(&mut r), vec![notify_upstream(u as i64, None)]);
    assert_eq!(up(&mut r, &result(u)), Backward::Drop);
    // It takes no broadcast and no request of the server's; a 2025-era client does.
    let legacy = r.connect(TransportKind::StreamableHttp);
    assert!(!r.takes_broadcast(m) && r.takes_broadcast(legacy));
    let sampling = json!({ "jsonrpc": "2.0", "id": 40, "method": "sampling/createMessage", "params": {} });
    assert_eq!(
        up(&mut r, &sampling),
        Backward::Downstream { link: legacy, id: Some(n(1)), progress_token: None, related: None }
    );
}

#[test]
fn a_discovery_before_any_handshake_fails_and_is_not_forwarded() {
    let mut r = relay();
    let m = r.connect_with_version(TransportKind::StreamableHttp, "2026-07-28", 0);
    assert_eq!(down(&mut r, m, &modern_call(json!("d"), "server/discover")), Forward::Drop);
    assert_eq!(
        outputs(&mut r),
        vec![RelayOutput::Fail { link: m, id: RequestId::from("d"), failure: Failure::HandshakeFailed }]
    );
}

#[test]
fn a_2025_answer_is_made_a_2026_07_28_one_and_discovery_comes_from_the_handshake() {
    let handshake = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": { "tools": { "listChanged": true }, "tasks": { "list": {} } },
        "serverInfo": { "name": "everything", "version": "2.0.0" },
        "instructions": "be kind",
    });
    assert_eq!(
        discover_result(&handshake),
        json!({
            "resultType": "complete",
            "supportedVersions": ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
            "capabilities": { "tools": { "listChanged": true } },
            "instructions": "be kind",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "everything", "version": "2.0.0" } },
        })
    );
    let tools = json!({ "jsonrpc": "2.0", "id": 3, "result": { "tools": [{ "name": "t", "inputSchema": {}, "execution": { "taskSupport": "optional" } }] } });
    assert_eq!(
        modern_answer("tools/list", tools),
        json!({ "jsonrpc": "2.0", "id": 3, "result": { "tools": [{ "name": "t", "inputSchema": {} }], "resultType": "complete", "ttlMs": 0, "cacheScope": "private" } })
    );
    let call = json!({ "jsonrpc": "2.0", "id": 4, "result": { "content": [], "resultType": "complete" } });
    assert_eq!(modern_answer("tools/call", call.clone()), call, "nothing to add, no cache fields");
    let missing = json!({ "jsonrpc": "2.0", "id": 5, "error": { "code": -32002, "message": "Resource not found" } });
    assert_eq!(modern_answer("resources/read", missing)["error"]["code"], -32602);
    let progress = json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": 1, "progress": 1 } });
    assert_eq!(modern_answer("tools/call", progress.clone()), progress);
}
