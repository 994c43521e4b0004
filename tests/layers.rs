//! The import graph of `src/core` and `src/wasm` (layered, so that the tree shows the
//! design): which module uses which, read from the source (`super::x`, `crate::core::x`,
//! `use super::{x, y::z}`), and its cycles (strongly connected components).
//!
//! There is none, and this test fails when one appears: types at the bottom (ids, tables,
//! methods, the records the session keeps of requests, verdicts, responses), the session's
//! state above them (`session`), each rule concern above that (`inbound`, `outbound`,
//! `tasks`, `timer`, `message`: the methods of `Session` for that concern; they call each
//! other through `Session`, never by importing one another), and the relay on top: its parts
//! (`relay/ids`, `relay/handshake`, `relay/vanish`, `relay/http`, `relay/output`) below its
//! `mod.rs`, which wires them.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The cycles of the import graph that are allowed: none. A cycle is a set of modules
/// (`core/x`, `wasm/x`).
const KNOWN_CYCLES: &[&[&str]] = &[];

/// A module's source file, found under `src/`: `x.rs`, or `x/mod.rs` for a module with
/// parts of its own (`x/y.rs`, module `x/y`).
struct Source {
    /// Its path from `src/` (`core/relay`, `core/relay/http`).
    path: Vec<String>,
    text: String,
    /// Whether it is a directory's `mod.rs`: it declares its parts and wires them.
    wires: bool,
}

/// The modules of `src/<at>` and of its directories, but the directory's own `mod.rs` (its
/// parent reads that one).
fn sources(at: &[String], out: &mut Vec<Source>) {
    let root = at.iter().fold(Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), |p, s| p.join(s));
    let mut entries: Vec<_> = fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let mut module = at.to_vec();
        module.push(name.clone());
        if path.is_dir() {
            let text = fs::read_to_string(path.join("mod.rs")).unwrap();
            out.push(Source { path: module.clone(), text, wires: true });
            sources(&module, out);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
            out.push(Source { path: module, text: fs::read_to_string(&path).unwrap(), wires: false });
        }
    }
}

/// The inline modules of a file (`mod tests { … }`, formatted by rustfmt: opened at the
/// start of a line, closed by a `}` alone on a line): their byte ranges and names.
fn inline_modules(text: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    let mut open: Option<(usize, String)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if open.is_none() {
            let item =
                trimmed.trim_start_matches("pub ").trim_start_matches("pub(crate) ").trim_start_matches("pub(super) ");
            if let Some(name) = item.strip_prefix("mod ").and_then(|r| r.strip_suffix(" {")) {
                open = Some((at, name.to_owned()));
            }
        } else if trimmed == "}" {
            let (start, name) = open.take().unwrap();
            found.push((start, at + line.len(), name));
        }
        at += line.len();
    }
    found
}

/// Every module of `src/<dir>` (`core/x` for `src/core/x.rs` or `src/core/x/mod.rs`,
/// `core/x/y` for `src/core/x/y.rs`) and the modules of `src/<dir>` it uses: the module a
/// path names (`super::x`, `super::super::x::y`, `crate::core::x`, each path of
/// `use super::{x, y::z}`), the deepest one it reaches; a path to an item of a parent
/// directory's `mod.rs` names that module; `src/<dir>/mod.rs`'s own items (the re-exports)
/// name none. A directory's `mod.rs` uses the parts it declares.
fn graph(dir: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut all = Vec::new();
    sources(&[dir.to_owned()], &mut all);
    let modules: BTreeSet<Vec<String>> = all.iter().map(|s| s.path.clone()).collect();
    let absolute = format!("crate::{dir}::");
    all.iter()
        .map(|source| {
            let me = &source.path;
            let inline = inline_modules(&source.text);
            let mut uses: BTreeSet<String> = BTreeSet::new();
            // `path` (the segments after the prefix) from `base`: the deepest module it names.
            let mut note = |base: &[String], path: &str| {
                let mut target = base.to_vec();
                for segment in path.split("::").map(str::trim) {
                    let mut next = target.clone();
                    next.push(segment.to_owned());
                    if !modules.contains(&next) {
                        break;
                    }
                    target = next;
                }
                if target.len() > 1 && &target != me && modules.contains(&target) {
                    uses.insert(target.join("/"));
                }
            };
            let text = source.text.as_str();
            for prefix in ["super::", absolute.as_str()] {
                for (at, _) in text.match_indices(prefix) {
                    // The start of a path only (not the second `super::` of `super::super::`).
                    let before = text[..at].chars().next_back();
                    if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                        continue;
                    }
                    let mut rest = &text[at + prefix.len()..];
                    let base: Vec<String> = if prefix == "super::" {
                        // Inside an inline module, `super` is the file's module first.
                        let depth = inline.iter().filter(|(start, end, _)| (*start..*end).contains(&at)).count();
                        let mut supers = 1;
                        while let Some(r) = rest.strip_prefix("super::") {
                            rest = r;
                            supers += 1;
                        }
                        let up = supers - depth.min(supers);
                        me[..me.len().saturating_sub(up)].to_vec()
                    } else {
                        vec![dir.to_owned()]
                    };
                    if let Some(group) = rest.strip_prefix('{') {
                        // `use super::{a, b::c, d::{e, f}}`: each path up to its own group.
                        let mut depth = 0;
                        let mut item = String::new();
                        for c in group.chars() {
                            match c {
                                '{' => depth += 1,
                                '}' if depth == 0 => break,
                                '}' => depth -= 1,
                                ',' if depth == 0 => {
                                    note(&base, &item);
                                    item.clear();
                                    continue;
                                }
                                _ => {}
                            }
                            if depth == 0 {
                                item.push(c);
                            }
                        }
                        note(&base, &item);
                    } else {
                        let end =
                            rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
                        note(&base, &rest[..end]);
                    }
                }
            }
            if source.wires {
                for line in text.lines() {
                    let item = line.trim_start_matches("pub ").trim_start_matches("pub(crate) ");
                    if let Some(part) = item.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                        let mut path = me.clone();
                        path.push(part.to_owned());
                        uses.insert(path.join("/"));
                    }
                }
            }
            (me.join("/"), uses)
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
    // A group: `use super::slots::{Fifo, Found, Ns, Slots, NONE};` in requests.rs names the module
    // `slots`, not its items; `use super::{MessageFields, Method, RequestId}` in relay/mod.rs
    // names no module.
    assert!(core["core/requests"].contains("core/slots"));
    assert!(!core["core/relay"].contains("core/id"));
    // A directory: relay/mod.rs uses the parts it declares; a part names its siblings with
    // `super::x` and the core's modules with `super::super::x`, and `super::super::{seeded,
    // IdMap}` (items of src/core/mod.rs) names no module.
    assert!(core["core/relay"].contains("core/relay/http") && core["core/relay"].contains("core/session"));
    assert!(core["core/relay/handshake"].contains("core/relay/http"));
    assert!(core["core/relay/handshake"].contains("core/id"));
    assert!(core["core/relay/http"].contains("core/revision"));
    assert!(!core["core/relay/ids"].contains("core/relay") && !core["core/relay/ids"].contains("core/relay/ids"));
    assert!(!core.contains_key("core/mod") && !core.contains_key("core/relay/mod"));
    // Inline modules: `use super::*` in ids.rs's tests is the module itself.
    assert_eq!(core["core/relay/ids"], BTreeSet::from(["core/id".to_owned()]));
    // `crate::core::…` paths are not read for core (the wasm layer's are its own).
    let found = cycles(&BTreeMap::from([
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["a".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]));
    assert_eq!(found, BTreeSet::from([BTreeSet::from(["a".to_owned(), "b".to_owned()])]));
}
