//! The import graph of `src/core` and `src/wasm` (layered, so that the tree shows the
//! design): which module uses which, read from the source (`super::x`, `crate::core::x`,
//! `use super::{x, y::z}`), and its cycles (strongly connected components).
//!
//! There is none, and this test fails when one appears: types at the bottom (ids, tables,
//! methods, the records the session keeps of requests, verdicts, responses), the session's
//! state above them (`session`), each rule concern above that (`inbound`, `outbound`,
//! `tasks`, `timer`, `message`: the methods of `Session` for that concern; they call each
//! other through `Session`, never by importing one another), and the relay on top.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The cycles of the import graph that are allowed: none. A cycle is a set of modules
/// (`core/x`, `wasm/x`).
const KNOWN_CYCLES: &[&[&str]] = &[];

/// Every module of `dir` (`src/<dir>/*.rs` but `mod.rs`) and the siblings it uses.
fn graph(dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir);
    let mut sources = BTreeMap::new();
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
            sources.insert(name, fs::read_to_string(&path).unwrap());
        }
    }
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let absolute = format!("crate::{dir}::");
    sources
        .iter()
        .map(|(name, text)| {
            let mut uses = BTreeSet::new();
            let mut note = |path: &str| {
                let first = path.trim().split("::").next().unwrap_or("").trim();
                if modules.contains(first) && first != name {
                    uses.insert(format!("{dir}/{first}"));
                }
            };
            for prefix in ["super::", absolute.as_str()] {
                for (at, _) in text.match_indices(prefix) {
                    let rest = &text[at + prefix.len()..];
                    if let Some(group) = rest.strip_prefix('{') {
                        // `use super::{a, b::c, d::{e, f}}`: the first segment of each path.
                        let mut depth = 0;
                        let mut item = String::new();
                        for c in group.chars() {
                            match c {
                                '{' => depth += 1,
                                '}' if depth == 0 => break,
                                '}' => depth -= 1,
                                ',' if depth == 0 => {
                                    note(&item);
                                    item.clear();
                                    continue;
                                }
                                _ => {}
                            }
                            if depth == 0 {
                                item.push(c);
                            }
                        }
                        note(&item);
                    } else {
                        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
                        note(&rest[..end]);
                    }
                }
            }
            (format!("{dir}/{name}"), uses)
        })
        .collect()
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<BTreeSet<String>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: BTreeSet<BTreeSet<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.insert(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: BTreeSet::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn the_import_graph_gains_no_cycle() {
    let mut all = graph("core");
    all.extend(graph("wasm"));
    let found = cycles(&all);
    let known: BTreeSet<BTreeSet<String>> =
        KNOWN_CYCLES.iter().map(|c| c.iter().map(|m| (*m).to_owned()).collect()).collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    let edges: Vec<String> = all.iter().map(|(m, uses)| format!("  {m} -> {uses:?}")).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "the import graph's cycles changed.\n  now:    {found:?}\n  listed: {known:?}\n\
         A cycle that grew or is new: break it (a module uses only modules below it). A listed \
         cycle that shrank or went: update KNOWN_CYCLES.\nThe graph:\n{}",
        edges.join("\n")
    );
}

#[test]
fn the_reader_finds_every_form_of_use() {
    // The window module's own uses, in each form the source has: `super::id::MAX_SAFE_INTEGER`
    // in an expression, `super::super::id::…` in tests.
    let core = graph("core");
    assert!(core["core/window"].contains("core/id"));
    assert!(!core["core/window"].contains("core/window"));
    // A group: `use super::slots::{Fifo, Ns, Slots, NONE};` in store.rs names the module
    // `slots`, not its items; `use super::{Event, MessageFields, …}` in relay.rs names no module.
    assert!(core["core/store"].contains("core/slots"));
    assert!(!core["core/relay"].contains("core/event"));
    // `crate::core::…` paths are not read for core (the wasm layer's are its own).
    let found = cycles(&BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]));
    assert_eq!(found, BTreeSet::from([BTreeSet::from(["a".to_owned(), "b".to_owned()])]));
}
