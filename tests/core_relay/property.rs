//! A property test of the id map: clients that cancel at random never cancel one another's
//! requests.

use super::*;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug)]
enum Step {
    /// Client `c` sends request `id` (0, 1 or "1").
    Send(usize, usize),
    /// Client `c` cancels request `id`.
    Cancel(usize, usize),
    /// The server answers the n-th request it has (modulo).
    Answer(usize),
    /// Client `c` disconnects.
    Disconnect(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..3usize, 0..3usize).prop_map(|(c, i)| Step::Send(c, i)),
        3 => (0..3usize, 0..3usize).prop_map(|(c, i)| Step::Cancel(c, i)),
        3 => (0..8usize).prop_map(Step::Answer),
        1 => (0..3usize).prop_map(Step::Disconnect),
    ]
}

fn id_value(i: usize) -> Value {
    [json!(0), json!(1), json!("1")][i].clone()
}

fn request_id(i: usize) -> RequestId {
    [n(0), n(1), RequestId::from("1")][i].clone()
}

/// The upstream ids the relay asked to cancel since the last call.
fn upstream_cancels(r: &mut Relay) -> Vec<u64> {
    std::iter::from_fn(|| r.poll_output())
        .filter_map(|out| match out {
            RelayOutput::Transmit(Side::Upstream, Transmit { request_id: RequestId::Number(u), .. }) => Some(u as u64),
            _ => None,
        })
        .collect()
}

proptest! {
    #[test]
    fn clients_cancelling_at_random_never_cancel_one_anothers_requests(steps in proptest::collection::vec(step(), 1..60)) {
        let mut r = relay();
        let links: Vec<Link> = (0..3).map(|_| r.connect(TransportKind::Messages)).collect();
        let mut gone: HashSet<usize> = HashSet::new();
        // upstream id → (client, its id), for every request the relay sent up.
        let mut owner: HashMap<u64, (usize, usize)> = HashMap::new();
        // Sent up, not answered, not cancelled.
        let mut open: Vec<u64> = Vec::new();
        let mut cancelled: HashSet<u64> = HashSet::new();
        for step in steps {
            match step {
                Step::Send(c, i) => {
                    let duplicate = open.iter().any(|u| owner[u] == (c, i));
                    match down(&mut r, links[c], &call(id_value(i))) {
                        Forward::Upstream { id: Some(u), .. } => {
                            prop_assert!(!gone.contains(&c) && !duplicate);
                            prop_assert!(!owner.contains_key(&u), "an upstream id is never reused");
                            owner.insert(u, (c, i));
                            open.push(u);
                        }
                        Forward::Drop => prop_assert!(gone.contains(&c) || duplicate),
                        other => prop_assert!(false, "unexpected {:?}", other),
                    }
                    prop_assert_eq!(upstream_cancels(&mut r), Vec::<u64>::new());
                }
                Step::Cancel(c, i) => {
                    let expected: Vec<u64> = open.iter().copied().filter(|u| owner[u] == (c, i)).collect();
                    let _ = down(&mut r, links[c], &cancel(id_value(i)));
                    let sent = upstream_cancels(&mut r);
                    prop_assert_eq!(&sent, &expected, "the cancel crosses to this client's request and no other");
                    open.retain(|u| !sent.contains(u));
                    cancelled.extend(sent);
                }
                Step::Answer(k) => {
                    let answered: Vec<u64> = owner.keys().copied().collect();
                    if answered.is_empty() { continue; }
                    let mut sorted = answered;
                    sorted.sort_unstable();
                    let u = sorted[k % sorted.len()];
                    let was_open = open.contains(&u);
                    match up(&mut r, &result(u)) {
                        Backward::Downstream { link, id: Some(id), .. } => {
                            let (c, i) = owner[&u];
                            prop_assert!(was_open, "only an open request's answer reaches a client");
                            prop_assert_eq!(link, links[c]);
                            prop_assert_eq!(id, request_id(i));
                        }
                        Backward::Drop => prop_assert!(!was_open, "an open request's answer is delivered"),
                        other => prop_assert!(false, "unexpected {:?}", other),
                    }
                    open.retain(|x| *x != u);
                    prop_assert_eq!(upstream_cancels(&mut r), Vec::<u64>::new());
                }
                Step::Disconnect(c) => {
                    let mut expected: Vec<u64> = open.iter().copied().filter(|u| owner[u].0 == c).collect();
                    expected.sort_unstable();
                    r.disconnect(links[c]);
                    gone.insert(c);
                    let sent = upstream_cancels(&mut r);
                    prop_assert_eq!(&sent, &expected, "a disconnect cancels exactly that client's requests");
                    open.retain(|u| !sent.contains(u));
                    cancelled.extend(sent);
                }
            }
        }
    }
}
