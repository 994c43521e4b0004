//! The relay's id map: the ids each request has on each side of the relay.
//!
//! - [`Routes`]: a client's request sent upstream goes under an id the relay chooses (a
//!   number, unique on the upstream connection), so that clients whose ids overlap (`0`, `1`,
//!   `"1"`) share one upstream, and an answer or a cancel crosses to the request it names
//!   and no other.
//! - [`ServerRequests`]: a request of the server's sent to a client goes under an id the
//!   relay chooses too (unique on the relay), so that a client never gets one id twice.
//!
//! Each map holds both directions, and each method keeps the two in step: nothing else in
//! the relay touches them.

use crate::prelude::*;

use super::super::id::RequestId;
use super::super::{seeded, IdMap};

/// A downstream connection of a [`Relay`](crate::core::Relay): a small number, never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Link(pub u32);

/// Where a request the relay sent upstream came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Route {
    /// The client.
    pub(super) link: Link,
    /// The client's own id of the request.
    pub(super) id: RequestId,
    /// The client's own progress token of the request, when it has one (the upstream one is
    /// the request's upstream id).
    pub(super) progress_token: Option<RequestId>,
}

/// The clients' requests in flight upstream, by upstream id and by each client's own id.
///
/// Invariants:
/// - every client's `id → up` has the route `up → (that client, id)`: an answer from the
///   server finds its client, and a cancel from the client its upstream request;
/// - a route without its client's `id → up` is the pending handshake's `initialize` of a
///   client that is gone ([`Self::forget`] keeps it): its answer still completes the shared
///   handshake for the others;
/// - upstream ids count from 1 and are never reused, so a late answer or a late cancel
///   never reaches a later request.
#[derive(Debug)]
pub(super) struct Routes {
    /// Upstream id → where the request came from.
    routes: hashbrown::HashMap<u64, Route, foldhash::fast::FixedState>,
    /// Each client's request ids in flight → their upstream ids; a client without one has no
    /// entry.
    clients: hashbrown::HashMap<Link, IdMap<u64>, foldhash::fast::FixedState>,
    /// The seed of the clients' maps: client `link`'s is this plus `link`.
    client_seed: u64,
    /// The next upstream id.
    next: u64,
}

impl Routes {
    /// No request in flight. `seed` seeds the upstream ids' map, `client_seed` each client's.
    pub(super) fn new(seed: u64, client_seed: u64) -> Self {
        Self { routes: seeded(seed), clients: seeded(client_seed.rotate_left(29)), client_seed, next: 1 }
    }

    /// Requests in flight upstream.
    pub(super) fn len(&self) -> usize {
        self.routes.len()
    }

    /// How many requests client `link` has in flight upstream.
    pub(super) fn count(&self, link: Link) -> usize {
        self.clients.get(&link).map_or(0, hashbrown::HashMap::len)
    }

    /// The upstream id of client `link`'s request `id`, while it is in flight.
    pub(super) fn upstream_id(&self, link: Link, id: &RequestId) -> Option<u64> {
        self.clients.get(&link).and_then(|ids| ids.get(id)).copied()
    }

    /// The route of upstream id `up`, while its request is in flight.
    pub(super) fn route(&self, up: u64) -> Option<&Route> {
        self.routes.get(&up)
    }

    /// A fresh upstream id, for the request about to be sent (an id taken and not routed,
    /// when the request could not be tracked, is not used again).
    pub(super) fn next_id(&mut self) -> u64 {
        let up = self.next;
        self.next += 1;
        up
    }

    /// The request `route` went upstream as `up` (from [`Self::next_id`]).
    pub(super) fn insert(&mut self, up: u64, route: Route) {
        let link = route.link;
        let seed = self.client_seed.wrapping_add(u64::from(link.0));
        self.clients.entry(link).or_insert_with(|| seeded(seed)).insert(route.id.clone(), up);
        self.routes.insert(up, route);
    }

    /// The request sent upstream as `up` is over (answered, failed, timed out): its route,
    /// now forgotten in both directions.
    pub(super) fn remove(&mut self, up: u64) -> Option<Route> {
        let route = self.routes.remove(&up)?;
        self.forget_client_id(route.link, &route.id);
        Some(route)
    }

    /// Client `link`'s request `id` is over for the client (cancelled, abandoned): its
    /// upstream id, now forgotten in both directions.
    pub(super) fn remove_client_id(&mut self, link: Link, id: &RequestId) -> Option<u64> {
        let up = self.forget_client_id(link, id)?;
        self.routes.remove(&up);
        Some(up)
    }

    fn forget_client_id(&mut self, link: Link, id: &RequestId) -> Option<u64> {
        let ids = self.clients.get_mut(&link)?;
        let up = ids.remove(id);
        if ids.is_empty() {
            self.clients.remove(&link);
        }
        up
    }

    /// Every request in flight, by upstream id, now forgotten (the upstream connection
    /// closed).
    pub(super) fn take_all(&mut self) -> Vec<(u64, Route)> {
        self.clients.clear();
        let mut routes: Vec<(u64, Route)> = self.routes.drain().collect();
        routes.sort_by_key(|(up, _)| *up);
        routes
    }

    /// Client `link` is gone: its requests in flight, by upstream id, forgotten, but for the
    /// route of `keep` (the pending handshake's), which stays.
    pub(super) fn forget(&mut self, link: Link, keep: Option<u64>) -> Vec<(u64, RequestId)> {
        let Some(ids) = self.clients.remove(&link) else { return Vec::new() };
        let mut gone: Vec<(u64, RequestId)> = ids.into_iter().map(|(id, up)| (up, id)).collect();
        gone.sort_unstable_by_key(|(up, _)| *up);
        for (up, _) in &gone {
            if Some(*up) != keep {
                self.routes.remove(up);
            }
        }
        gone
    }

    /// Client `link`'s requests in flight but `except` (the pending handshake's), by
    /// upstream id: `(its id, the upstream id)`.
    pub(super) fn of(&self, link: Link, except: Option<u64>) -> Vec<(RequestId, u64)> {
        let Some(ids) = self.clients.get(&link) else { return Vec::new() };
        let mut of: Vec<(RequestId, u64)> =
            ids.iter().filter(|(_, up)| Some(**up) != except).map(|(id, up)| (id.clone(), *up)).collect();
        of.sort_unstable_by_key(|(_, up)| *up);
        of
    }

    /// Whether client `link` has a request in flight but `except` (the pending handshake's).
    pub(super) fn has_any(&self, link: Link, except: Option<u64>) -> bool {
        self.clients.get(&link).is_some_and(|ids| ids.values().any(|up| Some(*up) != except))
    }
}

/// A request of the server's forwarded to a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ServerRequest {
    /// The client.
    pub(super) link: Link,
    /// Its id on the client's side (the relay's: never 0, which the MCP SDK 1.x ignores in
    /// a cancel; unique on the relay, so that a client never gets one id twice).
    pub(super) down: u64,
    /// The client's requests in flight when the server sent it (those it may be for): when
    /// the last of them is over, it is refused upstream and cancelled downstream. Empty:
    /// sent while the client had none (its only client's).
    pub(super) calls: Vec<RequestId>,
}

/// The server's requests forwarded to a client, by the server's id and by the relay's id on
/// the client's side.
///
/// Invariants:
/// - the two maps are one bijection: `server id → (client, down)` exactly when
///   `down → server id`;
/// - the ids on the clients' side count from 1 and are never reused.
#[derive(Debug)]
pub(super) struct ServerRequests {
    /// By the server's id.
    requests: IdMap<ServerRequest>,
    /// The ids the relay gave them on the clients' side → the server's.
    server_ids: hashbrown::HashMap<u64, RequestId, foldhash::fast::FixedState>,
    /// The next id on the clients' side.
    next: u64,
}

impl ServerRequests {
    /// None yet; the maps seeded with `seed` and `ids_seed`.
    pub(super) fn new(seed: u64, ids_seed: u64) -> Self {
        Self { requests: seeded(seed), server_ids: seeded(ids_seed), next: 1 }
    }

    /// The id the next request forwarded gets on its client's side.
    pub(super) fn next_id(&self) -> u64 {
        self.next
    }

    /// The server's request `id` went to client `link` as [`Self::next_id`], while the
    /// client had `calls` in flight.
    pub(super) fn insert(&mut self, id: RequestId, link: Link, calls: Vec<RequestId>) {
        let down = self.next;
        self.next += 1;
        self.server_ids.insert(down, id.clone());
        self.requests.insert(id, ServerRequest { link, down, calls });
    }

    /// Client `link` answered the relay's id `down`: the server's id of the request, now
    /// forgotten. `None` (and nothing forgotten) when `down` is not a request of the
    /// server's sent to this client.
    pub(super) fn answer(&mut self, link: Link, down: i64) -> Option<RequestId> {
        let down = u64::try_from(down).ok()?;
        let id = self.server_ids.get(&down)?;
        if self.requests.get(id).map(|s| s.link) != Some(link) {
            return None;
        }
        let id = self.server_ids.remove(&down)?;
        self.requests.remove(&id);
        Some(id)
    }

    /// The server's request `id` is over (cancelled by the server, refused): what it was,
    /// now forgotten.
    pub(super) fn remove(&mut self, id: &RequestId) -> Option<ServerRequest> {
        let request = self.requests.remove(id)?;
        self.server_ids.remove(&request.down);
        Some(request)
    }

    /// Client `link` is gone: the server's ids of its requests, in order, forgotten.
    pub(super) fn forget(&mut self, link: Link) -> Vec<RequestId> {
        let mut gone: Vec<RequestId> =
            self.requests.iter().filter(|(_, s)| s.link == link).map(|(id, _)| id.clone()).collect();
        gone.sort();
        for id in &gone {
            let _ = self.remove(id);
        }
        gone
    }

    /// Client `link`'s request `call` is over without an answer: it is no longer one of the
    /// calls of the server's requests to the client. Returns, in order, those it was the last
    /// call of (still held: [`Self::remove`] them once the call's own cancel is out).
    pub(super) fn call_over(&mut self, link: Link, call: &RequestId) -> Vec<RequestId> {
        let mut over: Vec<RequestId> = Vec::new();
        for (id, s) in self.requests.iter_mut() {
            if s.link != link || !s.calls.contains(call) {
                continue;
            }
            s.calls.retain(|c| c != call);
            if s.calls.is_empty() {
                over.push(id.clone());
            }
        }
        over.sort();
        over
    }

    /// The upstream connection closed: every request of the server's is forgotten.
    pub(super) fn clear(&mut self) {
        self.requests.clear();
        self.server_ids.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(i: i64) -> RequestId {
        RequestId::Number(i)
    }

    fn route(link: u32, id: RequestId) -> Route {
        Route { link: Link(link), id, progress_token: None }
    }

    /// Routes the request and returns its upstream id.
    fn send(routes: &mut Routes, link: u32, id: RequestId) -> u64 {
        let up = routes.next_id();
        routes.insert(up, route(link, id));
        up
    }

    #[test]
    fn overlapping_ids_of_two_clients_get_distinct_upstream_ids_and_each_finds_its_own() {
        let mut routes = Routes::new(1, 2);
        let a = send(&mut routes, 0, n(1));
        let b = send(&mut routes, 1, n(1));
        let c = send(&mut routes, 1, RequestId::from("1"));
        assert_eq!((a, b, c), (1, 2, 3));
        assert_eq!(routes.upstream_id(Link(0), &n(1)), Some(a));
        assert_eq!(routes.upstream_id(Link(1), &n(1)), Some(b));
        assert_eq!(routes.route(c), Some(&route(1, RequestId::from("1"))));
        assert_eq!((routes.len(), routes.count(Link(0)), routes.count(Link(1))), (3, 1, 2));
    }

    #[test]
    fn a_request_over_on_either_side_is_forgotten_on_both_and_its_id_is_never_reused() {
        let mut routes = Routes::new(1, 2);
        let a = send(&mut routes, 0, n(7));
        assert_eq!(routes.remove(a), Some(route(0, n(7))));
        assert_eq!(routes.upstream_id(Link(0), &n(7)), None);
        assert_eq!(routes.remove(a), None);
        let b = send(&mut routes, 0, n(7));
        assert!(b > a);
        assert_eq!(routes.remove_client_id(Link(0), &n(7)), Some(b));
        assert_eq!((routes.route(b), routes.len(), routes.count(Link(0))), (None, 0, 0));
        // An id taken for a request that was not sent is not given again.
        let skipped = routes.next_id();
        assert!(send(&mut routes, 0, n(7)) > skipped);
    }

    #[test]
    fn a_gone_client_is_forgotten_but_for_the_route_kept_for_the_handshake() {
        let mut routes = Routes::new(1, 2);
        let init = send(&mut routes, 0, n(0));
        let call = send(&mut routes, 0, n(1));
        let other = send(&mut routes, 1, n(1));
        assert_eq!(routes.of(Link(0), Some(init)), vec![(n(1), call)]);
        assert!(routes.has_any(Link(0), Some(init)));
        let lone = send(&mut routes, 2, n(0));
        assert!(!routes.has_any(Link(2), Some(lone)), "the handshake alone is no call");
        assert_eq!(routes.of(Link(2), Some(lone)), Vec::new());
        assert_eq!(routes.forget(Link(0), Some(init)), vec![(init, n(0)), (call, n(1))]);
        assert_eq!(routes.route(init), Some(&route(0, n(0))), "the handshake's route stays");
        assert_eq!((routes.route(call), routes.count(Link(0))), (None, 0));
        assert_eq!(routes.remove(init), Some(route(0, n(0))));
        assert_eq!(routes.take_all(), vec![(other, route(1, n(1))), (lone, route(2, n(0)))]);
        assert_eq!((routes.len(), routes.count(Link(1)), routes.count(Link(2))), (0, 0, 0));
    }

    #[test]
    fn a_servers_request_is_answered_only_by_the_client_it_went_to_and_only_once() {
        let mut server = ServerRequests::new(1, 2);
        assert_eq!(server.next_id(), 1);
        server.insert(n(0), Link(3), Vec::new());
        server.insert(RequestId::from("s"), Link(4), Vec::new());
        assert_eq!(server.next_id(), 3);
        assert_eq!(server.answer(Link(4), 1), None, "another client's");
        assert_eq!(server.answer(Link(3), -1), None);
        assert_eq!(server.answer(Link(3), 1), Some(n(0)));
        assert_eq!(server.answer(Link(3), 1), None, "answered already");
        assert_eq!(server.forget(Link(4)), vec![RequestId::from("s")]);
        assert_eq!(server.answer(Link(4), 2), None);
        assert_eq!(server.remove(&RequestId::from("s")), None);
    }

    #[test]
    fn a_servers_request_is_over_with_the_last_of_the_calls_it_may_be_for() {
        let mut server = ServerRequests::new(1, 2);
        server.insert(n(10), Link(0), vec![n(1), n(2)]);
        server.insert(n(11), Link(0), vec![n(2)]);
        server.insert(n(12), Link(0), Vec::new());
        server.insert(n(13), Link(1), vec![n(2)]);
        assert_eq!(server.call_over(Link(0), &n(2)), vec![n(11)]);
        assert_eq!(server.call_over(Link(0), &n(2)), Vec::<RequestId>::new());
        assert_eq!(server.call_over(Link(0), &n(1)), vec![n(10)]);
        // Still held until removed; the relay's id on the client's side goes with it.
        let held = server.remove(&n(10)).unwrap();
        assert_eq!((held.link, held.down, held.calls.is_empty()), (Link(0), 1, true));
        assert_eq!(server.answer(Link(0), 1), None);
        server.clear();
        assert_eq!(server.answer(Link(0), 3), None);
        assert_eq!(server.remove(&n(13)), None);
    }
}
