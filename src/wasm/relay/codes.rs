//! The numbers of the relay's class: what `message()` answers for a client's message
//! ([`forward`]) and for the server's ([`backward`]), and the tables that name them for the JS
//! relay ([`constants`], in `RelayCore.constantsJson()`).

use super::super::json::Json;
use crate::core::Failure;

/// The relay's tables, after the session's (`SessionCore::constants_json`) in
/// `RelayCore.constantsJson()`:
/// `,"relayForward":{…},"relayBackward":{…},"unroutable":{ code, message }` — the codes
/// `message()` returns, and the error to answer a server's request with on
/// [`backward::REFUSE`].
pub(super) fn constants(json: &mut Json) {
    json.object(
        "relayForward",
        &[
            ("drop", forward::DROP),
            ("upstream", forward::UPSTREAM),
            ("answerHandshake", forward::ANSWER_HANDSHAKE),
            ("hold", forward::HOLD),
            ("needFields", forward::NEED_FIELDS),
            ("answerDiscover", forward::ANSWER_DISCOVER),
            ("answerServer", forward::ANSWER_SERVER),
        ],
    );
    json.object(
        "relayBackward",
        &[
            ("drop", backward::DROP),
            ("downstream", backward::DOWNSTREAM),
            ("broadcast", backward::BROADCAST),
            ("refuse", backward::REFUSE),
            ("needFields", backward::NEED_FIELDS),
        ],
    );
    json.failure("unroutable", Failure::Unroutable);
}

/// What `downstream()` answers: `0` drop, `1` send upstream (with `forwardId` /
/// `forwardToken` when set), `2` answer with the handshake result, `3` hold (answered by a
/// later `answer-handshake` output), `4 | fields << 8` read those members too and call again,
/// `5` answer this `server/discover` with `discoverResult` of the handshake result, `6` send
/// this response upstream with its id replaced by `forwardAnswerId` (the server's).
pub(super) mod forward {
    pub const DROP: u32 = 0;
    pub const UPSTREAM: u32 = 1;
    pub const ANSWER_HANDSHAKE: u32 = 2;
    pub const HOLD: u32 = 3;
    pub const NEED_FIELDS: u32 = 4;
    pub const ANSWER_DISCOVER: u32 = 5;
    pub const ANSWER_SERVER: u32 = 6;
}

/// What `upstream()` answers: `0` drop, `1` send to client `backLink` (with `backId` /
/// `backToken` when set), `2` send to every client, `3` refuse (answer the server with the
/// `unroutable` error of the constants), `4 | fields << 8` read those members too and call again.
pub(super) mod backward {
    pub const DROP: u32 = 0;
    pub const DOWNSTREAM: u32 = 1;
    pub const BROADCAST: u32 = 2;
    pub const REFUSE: u32 = 3;
    pub const NEED_FIELDS: u32 = 4;
}
