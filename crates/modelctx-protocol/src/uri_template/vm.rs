//! Running a compiled template against a URI.
//!
//! The head runs as a Pike VM: every thread advances in lock step, one character at a time,
//! so the work is bounded by the URI's length times the program's, and the thread order
//! gives the preferences (greedy values, lists filled from the left) without backtracking.
//! The trailing query expressions are matched by parsing the rest of the URI; the places
//! where that parse succeeds are computed for the whole URI in one pass first.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::compile::{Inst, Program};
use crate::percent::decode;

impl Program {
    pub(super) fn match_uri(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let ends = self.query_starts(uri);
        let (mut current, mut next) = (Threads::new(self.insts.len()), Threads::new(self.insts.len()));
        let mut stack = Vec::new();
        let mut found = None;
        self.add(&mut current, &mut stack, 0, 0, None);
        let mut pos = 0;
        loop {
            let c = uri[pos..].chars().next();
            let after = pos + c.map_or(0, char::len_utf8);
            next.clear();
            for thread in &current.list {
                let consumed = match self.insts[thread.pc] {
                    Inst::Match => {
                        if ends[pos] {
                            // Threads after this one have lower priority: drop them.
                            found = Some((thread.caps.clone(), pos));
                            break;
                        }
                        false
                    }
                    Inst::Char(want) => c == Some(want),
                    Inst::Hex => c.is_some_and(|c| c.is_ascii_hexdigit()),
                    Inst::Value(class) => c.is_some_and(|c| c != '%' && !self.classes[class].contains(&c)),
                    Inst::Split(..) | Inst::Jump(_) | Inst::Save(_) => false,
                };
                if consumed {
                    self.add(&mut next, &mut stack, thread.pc + 1, after, thread.caps.clone());
                }
            }
            if c.is_none() || next.list.is_empty() {
                break;
            }
            std::mem::swap(&mut current, &mut next);
            pos = after;
        }
        let (caps, end) = found?;
        self.collect(uri, caps.as_deref(), end)
    }

    /// Adds the thread at `pc` and everything reachable from it without consuming input,
    /// in priority order; states already in the list keep their higher-priority thread.
    fn add(&self, threads: &mut Threads, stack: &mut Vec<(usize, Caps)>, pc: usize, pos: usize, caps: Caps) {
        stack.push((pc, caps));
        while let Some((pc, caps)) = stack.pop() {
            if threads.stamp[pc] == threads.generation {
                continue;
            }
            threads.stamp[pc] = threads.generation;
            match self.insts[pc] {
                Inst::Jump(to) => stack.push((to, caps)),
                Inst::Split(preferred, other) => {
                    stack.push((other, caps.clone()));
                    stack.push((preferred, caps));
                }
                Inst::Save(slot) => {
                    stack.push((pc + 1, Some(Rc::new(SaveNode { slot, pos, prev: caps }))));
                }
                Inst::Char(_) | Inst::Hex | Inst::Value(_) | Inst::Match => {
                    threads.list.push(Thread { pc, caps });
                }
            }
        }
    }

    /// The decoded values of a match whose head ends at `end`.
    fn collect(&self, uri: &str, caps: Option<&SaveNode>, end: usize) -> Option<BTreeMap<String, String>> {
        let mut slots = vec![None; 2 * self.head_vars.len()];
        let mut node = caps;
        while let Some(save) = node {
            // The newest save of a slot wins (each slot is saved at most once per path anyway).
            if slots[save.slot].is_none() {
                slots[save.slot] = Some(save.pos);
            }
            node = save.prev.as_deref();
        }
        let mut values = BTreeMap::new();
        for (i, name) in self.head_vars.iter().enumerate() {
            if let (Some(start), Some(stop)) = (slots[2 * i], slots[2 * i + 1]) {
                values.insert(name.clone(), decode(uri.get(start..stop)?)?);
            }
        }
        if end < uri.len() {
            // `query_starts` accepted this query: known, distinct names.
            for param in uri.get(end + 1..)?.split('&') {
                let (name, value) = param.split_once('=').unwrap_or((param, ""));
                values.insert(name.to_owned(), decode(value)?);
            }
        }
        Some(values)
    }

    /// For every byte offset, whether the head may end there: at the end of the URI, or where
    /// the rest is a query the trailing expressions accept (a lead character, then
    /// `&`-separated `name[=value]` parameters with known, distinct names and values without
    /// `#` or a bad `%`). One right-to-left pass.
    fn query_starts(&self, uri: &str) -> Vec<bool> {
        let len = uri.len();
        let mut ends = vec![false; len + 1];
        ends[len] = true;
        let Some(query) = &self.query else { return ends };
        let bytes = uri.as_bytes();
        let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
        // bad_before[i]: how many bytes before `i` may not appear in a value.
        let mut bad_before = Vec::with_capacity(len + 1);
        bad_before.push(0usize);
        for (i, &b) in bytes.iter().enumerate() {
            let bad = b == b'#' || (b == b'%' && !(hex(i + 1) && hex(i + 2)));
            bad_before.push(bad_before[i] + usize::from(bad));
        }
        // The variable named by the parameter `uri[start..stop]`, if it is valid.
        let param = |start: usize, stop: usize| -> Option<usize> {
            let text = uri.get(start..stop)?;
            let name_end = text.bytes().take(query.longest + 1).position(|b| b == b'=').unwrap_or(text.len());
            let var = *query.names.get(text.get(..name_end)?)?;
            (bad_before[stop] == bad_before[start + name_end]).then_some(var)
        };
        // owner[v]: the `&` whose parameter names `v`, in the valid chain after `next_amp`.
        let mut owner = vec![false; query.names.len()];
        let mut next_amp = len;
        let mut chain_ok = true;
        for p in (0..len).rev() {
            if query.leads.contains(&bytes[p])
                && let Some(var) = param(p + 1, next_amp)
            {
                ends[p] = next_amp == len || (chain_ok && !owner[var]);
            }
            if bytes[p] == b'&' {
                if chain_ok {
                    match param(p + 1, next_amp) {
                        Some(var) if !owner[var] => owner[var] = true,
                        _ => chain_ok = false,
                    }
                }
                next_amp = p;
            }
        }
        ends
    }
}

/// The captures of a thread: a persistent list of saves, newest first, shared between
/// threads so that forking one costs nothing.
type Caps = Option<Rc<SaveNode>>;

struct SaveNode {
    slot: usize,
    pos: usize,
    prev: Caps,
}

impl Drop for SaveNode {
    /// Unlinks the list iteratively, so a long one cannot overflow the stack.
    fn drop(&mut self) {
        let mut prev = self.prev.take();
        while let Some(node) = prev {
            prev = Rc::try_unwrap(node).ok().and_then(|mut node| node.prev.take());
        }
    }
}

struct Thread {
    pc: usize,
    caps: Caps,
}

/// A thread list with a generation-stamped membership set over program counters.
struct Threads {
    list: Vec<Thread>,
    stamp: Vec<u64>,
    generation: u64,
}

impl Threads {
    fn new(len: usize) -> Self {
        Self { list: Vec::new(), stamp: vec![0; len], generation: 1 }
    }

    fn clear(&mut self) {
        self.list.clear();
        self.generation += 1;
    }
}
