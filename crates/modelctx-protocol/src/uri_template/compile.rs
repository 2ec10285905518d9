//! Compiling a template for matching.
//!
//! Everything up to the trailing `?`/`&` expressions (the head) compiles to a small NFA that
//! `vm` runs as a Pike VM; the trailing query expressions become a `QueryTail`
//! that the VM checks by parsing the rest of the URI.

use std::collections::BTreeMap;

use super::expand::encode_into;
use super::{Expression, Operator, Part, VarSpec};

#[derive(Clone, Copy, Debug)]
pub(super) enum Inst {
    /// Consume this character.
    Char(char),
    /// Consume an ASCII hex digit.
    Hex,
    /// Consume one value character: anything but `%` and the class's stop characters.
    Value(usize),
    /// Continue at both, preferring the first.
    Split(usize, usize),
    /// Continue there.
    Jump(usize),
    /// Record the position in a capture slot.
    Save(usize),
    /// The head matched; the rest of the URI must be a query the tail accepts.
    Match,
}

/// A placeholder target, always patched before compilation ends.
const UNPATCHED: usize = usize::MAX;

/// A compiled template.
#[derive(Clone, Debug)]
pub(super) struct Program {
    pub(super) insts: Vec<Inst>,
    /// Stop characters of each value class.
    pub(super) classes: Vec<Vec<char>>,
    /// The variables the head captures: variable `i` uses slots `2i` and `2i + 1`.
    pub(super) head_vars: Vec<String>,
    /// The trailing `?`/`&` expressions, if any.
    pub(super) query: Option<QueryTail>,
}

/// The trailing `?`/`&` expressions, matched as a query with parameters in any order.
#[derive(Clone, Debug)]
pub(super) struct QueryTail {
    /// The bytes the query may start with (`?`, `&`).
    pub(super) leads: Vec<u8>,
    /// The variable names, each with an index below `names.len()`.
    pub(super) names: BTreeMap<String, usize>,
    /// The length of the longest name.
    pub(super) longest: usize,
}

impl Program {
    pub(super) fn compile(parts: &[Part]) -> Self {
        let is_query = |part: &Part| matches!(part, Part::Expression(expr) if expr.op.is_query());
        let head_len = parts.iter().rposition(|part| !is_query(part)).map_or(0, |i| i + 1);
        let mut program = Self { insts: Vec::new(), classes: Vec::new(), head_vars: Vec::new(), query: None };
        for (i, part) in parts[..head_len].iter().enumerate() {
            match part {
                Part::Literal(literal) => program.literal(literal),
                Part::Expression(expr) => {
                    program.classes.push(stop_chars(expr, &parts[i + 1..]));
                    let class = program.classes.len() - 1;
                    if expr.op.named() {
                        program.named(expr, class);
                    } else {
                        program.list(expr, class);
                    }
                }
            }
        }
        program.insts.push(Inst::Match);
        debug_assert!(
            !program
                .insts
                .iter()
                .any(|inst| matches!(inst, Inst::Split(_, UNPATCHED) | Inst::Jump(UNPATCHED))),
            "unpatched placeholder"
        );
        let tail: Vec<&Expression> = parts[head_len..]
            .iter()
            .filter_map(|part| match part {
                Part::Expression(expr) => Some(expr),
                Part::Literal(_) => None,
            })
            .collect();
        if let Some(first) = tail.first() {
            let mut leads = vec![if first.op == Operator::Query { b'?' } else { b'&' }];
            // `{?a}{&b}` expands to `&b=…` when `a` is undefined.
            if tail.iter().any(|expr| expr.op == Operator::QueryContinuation) {
                leads.push(b'&');
            }
            let vars = tail.iter().flat_map(|expr| &expr.vars);
            let names: BTreeMap<String, usize> =
                vars.enumerate().map(|(i, var)| (var.name.clone(), i)).collect();
            let longest = names.keys().map(String::len).max().unwrap_or(0);
            program.query = Some(QueryTail { leads, names, longest });
        }
        program
    }

    fn placeholder_split(&mut self) -> usize {
        self.insts.push(Inst::Split(self.insts.len() + 1, UNPATCHED));
        self.insts.len() - 1
    }

    fn placeholder_jump(&mut self) -> usize {
        self.insts.push(Inst::Jump(UNPATCHED));
        self.insts.len() - 1
    }

    /// Points the placeholder at `at` (a split's second branch, or a jump) to `target`.
    fn patch(&mut self, at: usize, target: usize) {
        if let Inst::Split(_, to) | Inst::Jump(to) = &mut self.insts[at] {
            *to = target;
        }
    }

    fn chars(&mut self, text: &str) {
        self.insts.extend(text.chars().map(Inst::Char));
    }

    /// A literal, as written or as expansion encodes it.
    fn literal(&mut self, raw: &str) {
        let mut encoded = String::new();
        encode_into(&mut encoded, raw, true);
        if encoded == raw {
            self.chars(raw);
            return;
        }
        let split = self.placeholder_split();
        self.chars(raw);
        let jump = self.placeholder_jump();
        let alternative = self.insts.len();
        self.patch(split, alternative);
        self.chars(&encoded);
        let end = self.insts.len();
        self.patch(jump, end);
    }

    fn slot(&mut self, var: &VarSpec) -> usize {
        self.head_vars.push(var.name.clone());
        2 * (self.head_vars.len() - 1)
    }

    /// A captured value: value characters and `%XX` triplets, greedy.
    fn value(&mut self, slot: usize, class: usize, nonempty: bool) {
        self.insts.push(Inst::Save(slot));
        let start = self.insts.len();
        let skip = if nonempty { None } else { Some(self.placeholder_split()) };
        let unit = self.insts.len();
        self.insts.extend([
            Inst::Split(unit + 1, unit + 3),
            Inst::Value(class),
            Inst::Jump(unit + 6),
            Inst::Char('%'),
            Inst::Hex,
            Inst::Hex,
        ]);
        match skip {
            Some(skip) => {
                self.insts.push(Inst::Jump(start));
                let end = self.insts.len();
                self.patch(skip, end);
            }
            None => self.insts.push(Inst::Split(start, self.insts.len() + 1)),
        }
        self.insts.push(Inst::Save(slot + 1));
    }

    /// Operators none, `+`, `#`, `.` and `/`: `first v1 (sep v2 (sep v3)?)?`, where only
    /// none and `+` are required.
    fn list(&mut self, expr: &Expression, class: usize) {
        let first = expr.op.first();
        let mut skips = Vec::new();
        if let Some(first) = first {
            skips.push(self.placeholder_split());
            self.insts.push(Inst::Char(first));
        }
        for (k, var) in expr.vars.iter().enumerate() {
            if k > 0 {
                skips.push(self.placeholder_split());
                self.insts.push(Inst::Char(expr.op.separator()));
            }
            let slot = self.slot(var);
            self.value(slot, class, first.is_none());
        }
        let end = self.insts.len();
        for at in skips {
            self.patch(at, end);
        }
    }

    /// Operators `;`, `?` and `&` (when not at the end): each variable an optional
    /// `name[=value]` item in order. Two tracks tell whether an item was written yet, so
    /// the first one starts with the operator character and the others with the separator.
    fn named(&mut self, expr: &Expression, class: usize) {
        let separator = expr.op.separator();
        let first = expr.op.first().unwrap_or(separator);
        // Placeholders to point at the next variable's block on either track.
        let mut to_none_written = Vec::new();
        let mut to_some_written = Vec::new();
        for var in &expr.vars {
            let slot = self.slot(var);
            let here = self.insts.len();
            for at in to_none_written.drain(..) {
                self.patch(at, here);
            }
            to_none_written.push(self.placeholder_split());
            self.item(var, first, slot, class);
            let written = vec![self.placeholder_jump()];
            let here = self.insts.len();
            for at in std::mem::replace(&mut to_some_written, written) {
                self.patch(at, here);
            }
            to_some_written.push(self.placeholder_split());
            self.item(var, separator, slot, class);
            to_some_written.push(self.placeholder_jump());
        }
        let end = self.insts.len();
        for at in to_none_written.into_iter().chain(to_some_written) {
            self.patch(at, end);
        }
    }

    /// `lead name`, then `=value` or nothing (an empty value).
    fn item(&mut self, var: &VarSpec, lead: char, slot: usize, class: usize) {
        self.insts.push(Inst::Char(lead));
        self.chars(&var.name);
        let bare = self.placeholder_split();
        self.insts.push(Inst::Char('='));
        self.value(slot, class, false);
        let done = self.placeholder_jump();
        let here = self.insts.len();
        self.patch(bare, here);
        self.insts.extend([Inst::Save(slot), Inst::Save(slot + 1)]);
        let end = self.insts.len();
        self.patch(done, end);
    }
}

/// The stop characters of an expression's values (see the module documentation).
fn stop_chars(expr: &Expression, following: &[Part]) -> Vec<char> {
    let later = |wanted: fn(Operator) -> bool| {
        following.iter().any(|part| matches!(part, Part::Expression(e) if wanted(e.op)))
    };
    let mut stop = Vec::new();
    match expr.op {
        Operator::Reserved => {
            if later(Operator::is_query) {
                stop.push('?');
            }
            if later(|op| op == Operator::Fragment) {
                stop.push('#');
            }
        }
        Operator::Fragment => {}
        op => {
            stop.extend_from_slice(if op.is_query() { &['&', '#'][..] } else { &['/', '?', '#'][..] });
            if op == Operator::PathParam {
                stop.push(';');
            }
            for part in following {
                match part {
                    Part::Literal(literal) => {
                        stop.extend(literal.chars().next());
                        break;
                    }
                    Part::Expression(next) => match next.op.first() {
                        Some(c) => stop.push(c),
                        None => break,
                    },
                }
            }
        }
    }
    if expr.vars.len() > 1 {
        stop.push(expr.op.separator());
    }
    stop.sort_unstable();
    stop.dedup();
    stop
}
