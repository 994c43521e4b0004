//! The event schema is defined once, by the core's `EventKind`: this test checks the
//! TypeScript union `CancellationEvent` in js/index.d.ts against it, member by member, so
//! the typings cannot drift from what the wasm layer hands to `onEvent`.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};

use mcp_cancel::core::{
    Direction, Event, EventKind, Ignored, NotSent, RequestId, Revision, TaskCancelOutcome, TimeoutKind, Via,
};

include!("common/every_event.rs");

/// The members of each arm of `CancellationEvent` in the typings, by `type`, with the
/// literal `direction`.
fn typings() -> BTreeMap<String, (String, BTreeSet<String>)> {
    let dts = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/js/index.d.ts")).unwrap();
    let start = dts.find("export type CancellationEvent =").expect("the union is in js/index.d.ts");
    let mut arms = BTreeMap::new();
    let union = dts[start..].lines().skip(1).take_while(|l| l.trim_start().starts_with("| {"));
    for line in union {
        let inner = line.trim().trim_start_matches("| {").trim_end_matches('}').trim_end_matches(';');
        let mut members = BTreeSet::new();
        let (mut ty, mut direction) = (String::new(), String::new());
        for member in inner.split(';') {
            let Some((name, value)) = member.split_once(':') else { continue };
            let name = name.trim().trim_end_matches('?').to_owned();
            let value = value.trim().trim_matches('"').to_owned();
            match name.as_str() {
                "type" => ty = value,
                "direction" => direction = value,
                _ => {}
            }
            members.insert(name);
        }
        arms.insert(ty, (direction, members));
    }
    arms
}

#[test]
fn every_core_event_has_the_same_members_and_direction_in_the_typings() {
    let arms = typings();
    for event in every_kind() {
        let json = serde_json::to_value(&event).unwrap();
        let object = json.as_object().unwrap();
        let ty = object["type"].as_str().unwrap().to_owned();
        let Some((direction, members)) = arms.get(&ty) else {
            panic!("CancellationEvent in js/index.d.ts has no arm for {ty:?}");
        };
        let serialized: BTreeSet<String> = object.keys().cloned().collect();
        assert_eq!(&serialized, members, "members of {ty:?}: the core (left) and js/index.d.ts (right) differ");
        assert_eq!(object["direction"].as_str().unwrap(), direction, "direction of {ty:?}");
    }
}

#[test]
fn the_typings_have_no_event_the_core_does_not_make_but_send_failed() {
    let made: BTreeSet<String> =
        every_kind().iter().map(|e| serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_owned()).collect();
    for ty in typings().keys() {
        // `send-failed` is the wasm layer's: a callback that threw.
        assert!(made.contains(ty) || ty == "send-failed", "js/index.d.ts has an event {ty:?} the core never makes");
    }
}

/// The string literals of `export type <name> = "a" | "b" …;` in the typings.
fn literal_union(name: &str) -> BTreeSet<String> {
    let dts = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/js/index.d.ts")).unwrap();
    let start = dts.find(&format!("export type {name} =")).expect("the union is in js/index.d.ts");
    let end = start + dts[start..].find(';').unwrap();
    dts[start..end].split('"').skip(1).step_by(2).map(str::to_owned).collect()
}

#[test]
fn the_reasons_a_cancel_is_ignored_or_not_sent_are_the_same_in_the_typings() {
    assert_eq!(literal_union("IgnoredWhy"), Ignored::ALL.iter().map(|i| i.as_str().to_owned()).collect());
    assert_eq!(literal_union("NotSentWhy"), NotSent::ALL.iter().map(|n| n.as_str().to_owned()).collect());
}
