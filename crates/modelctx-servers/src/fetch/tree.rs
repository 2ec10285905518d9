//! A page parsed into its tree within a budget of work. The HTML tree builder looks down its
//! stack of open elements for most start tags (is a `<p>` open to close?), so a page nested
//! deep costs the square of its depth to parse: 500 KB of `<div>`s took minutes, 5 MiB would
//! take hours. The tree is built as usual (`html5ever`, into `dom_query`'s document, what
//! Readability reads), fed a few KiB at a time through a sink that counts the elements open
//! and charges each new element their number; past the budget the parse stops.

use std::borrow::Cow;
use std::cell::Cell;

use dom_query::{Document, NodeId};
use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tokenizer::TokenizerOpts;
use html5ever::tree_builder::TreeBuilderOpts;
use html5ever::{Attribute, ParseOpts, QualName, parse_document};

/// The work a page's tree may cost: the elements open, summed over every element made. A
/// long real page (50,000 elements some 30 deep) costs about 1.5 million; the budget is
/// parsed in well under a second.
pub const WORK_BUDGET: u64 = 20_000_000;

/// How much of the page is fed at once, and so how far past the budget a parse can go.
const CHUNK_BYTES: usize = 4096;

/// `html` parsed as a browser would (scripting off, as Readability reads it), or `None` when
/// building its tree would cost more than `budget`.
pub fn parse_within(html: &str, budget: u64) -> Option<Document> {
    let options = ParseOpts {
        tokenizer: TokenizerOpts::default(),
        tree_builder: TreeBuilderOpts { scripting_enabled: false, ..TreeBuilderOpts::default() },
    };
    let mut parser = parse_document(Metered::default(), options);
    let mut rest = html;
    while !rest.is_empty() {
        let mut end = rest.len().min(CHUNK_BYTES);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..end]));
        rest = &rest[end..];
        if parser.tokenizer.sink.sink.work.get() > budget {
            return None;
        }
    }
    let metered = parser.finish();
    (metered.work.get() <= budget).then_some(metered.document)
}

/// `dom_query`'s document as the tree builder's sink, with the work counted: the elements
/// open (made, less those the builder pops; an element it takes off the stack otherwise stays
/// counted, which only overcharges) and the sum of that over every element made.
#[derive(Default)]
struct Metered {
    document: Document,
    open: Cell<u64>,
    work: Cell<u64>,
}

impl TreeSink for Metered {
    type Handle = NodeId;
    type Output = Self;
    type ElemName<'a> = <Document as TreeSink>::ElemName<'a>;

    fn finish(self) -> Self {
        self
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let open = self.open.get() + 1;
        self.open.set(open);
        self.work.set(self.work.get().saturating_add(open));
        self.document.create_element(name, attrs, flags)
    }

    fn pop(&self, node: &NodeId) {
        self.open.set(self.open.get().saturating_sub(1));
        self.document.pop(node);
    }

    fn parse_error(&self, message: Cow<'static, str>) {
        self.document.parse_error(message);
    }

    fn get_document(&self) -> NodeId {
        self.document.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Self::ElemName<'a> {
        self.document.elem_name(target)
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.document.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.document.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.document.append(parent, child);
    }

    fn append_based_on_parent_node(&self, element: &NodeId, previous: &NodeId, child: NodeOrText<NodeId>) {
        self.document.append_based_on_parent_node(element, previous, child);
    }

    fn append_doctype_to_document(&self, name: StrTendril, public_id: StrTendril, system_id: StrTendril) {
        self.document.append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&self, node: &NodeId) {
        self.document.mark_script_already_started(node);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.document.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.document.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.document.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &NodeId, node: NodeOrText<NodeId>) {
        self.document.append_before_sibling(sibling, node);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.document.add_attrs_if_missing(target, attrs);
    }

    fn associate_with_form(&self, target: &NodeId, form: &NodeId, nodes: (&NodeId, Option<&NodeId>)) {
        self.document.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.document.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.document.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
        self.document.is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line: u64) {
        self.document.set_current_line(line);
    }

    fn allow_declarative_shadow_roots(&self, intended_parent: &NodeId) -> bool {
        self.document.allow_declarative_shadow_roots(intended_parent)
    }

    fn attach_declarative_shadow(&self, location: &NodeId, template: &NodeId, attrs: &[Attribute]) -> bool {
        self.document.attach_declarative_shadow(location, template, attrs)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &NodeId) {
        self.document.maybe_clone_an_option_into_selectedcontent(option);
    }
}
