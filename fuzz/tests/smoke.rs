//! The bounded fuzz run of CI: every target over every file of its corpus, then over
//! mutations of those files (bytes set, inserted, removed, repeated), a fixed number of cases
//! per target. A failure names the target and, once shrunk, the input; add that input to the
//! target's corpus so it stays a regression test. `scripts/fuzz.sh` runs the same targets under
//! libFuzzer for as long as it is given.

use std::path::{Path, PathBuf};

use modelctx_fuzz::{TARGETS, Target};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Mutated inputs tried per target.
const CASES: u32 = 2048;

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target)
}

/// The files of `target`'s corpus, by name.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(corpus_dir(target))
        .unwrap_or_else(|e| panic!("{target}: no corpus: {e}"))
        .map(|entry| {
            let path = entry.expect("a corpus entry").path();
            let bytes = std::fs::read(&path).expect("a corpus file");
            (path.file_name().expect("a file name").to_string_lossy().into_owned(), bytes)
        })
        .collect();
    files.sort();
    files
}

/// One change to an input.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Remove(usize, usize),
    Repeat(usize, usize),
}

/// Bytes the parsers give meaning to, tried more often than chance would.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![any::<u8>(), prop::sample::select(b"\n\r\0\"\\{}[]:,$*?/%=#&;.+ 0-9\xff\xed".to_vec()),]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), byte()).prop_map(|(at, b)| Edit::Set(at, b)),
        (any::<usize>(), byte()).prop_map(|(at, b)| Edit::Insert(at, b)),
        (any::<usize>(), 1usize..16).prop_map(|(at, n)| Edit::Remove(at, n)),
        (any::<usize>(), 1usize..64).prop_map(|(at, n)| Edit::Repeat(at, n)),
    ]
}

/// `seed` with `edits` applied, positions taken modulo its length.
fn mutated(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut input = seed.to_vec();
    for edit in edits {
        let at = |position: usize, len: usize| if len == 0 { 0 } else { position % len };
        match *edit {
            Edit::Set(position, b) if !input.is_empty() => {
                let i = at(position, input.len());
                input[i] = b;
            }
            Edit::Set(..) => {}
            Edit::Insert(position, b) => input.insert(at(position, input.len() + 1), b),
            Edit::Remove(position, n) => {
                let from = at(position, input.len());
                input.drain(from..(from + n).min(input.len()));
            }
            Edit::Repeat(position, n) => {
                let from = at(position, input.len());
                let piece = input[from..(from + n).min(input.len())].to_vec();
                input.splice(from..from, piece);
            }
        }
    }
    input
}

fn run_one(target: &Target, input: &[u8]) -> Result<(), String> {
    std::panic::catch_unwind(|| (target.run)(input)).map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        format!("{}: {message}", target.name)
    })
}

#[test]
fn every_target_holds_on_every_file_of_its_corpus() {
    for target in TARGETS {
        for (name, bytes) in corpus(target.name) {
            run_one(target, &bytes).unwrap_or_else(|e| panic!("corpus file {name}: {e}"));
        }
    }
}

#[test]
fn every_target_holds_on_mutations_of_its_corpus() {
    for target in TARGETS {
        let seeds: Vec<Vec<u8>> = corpus(target.name).into_iter().map(|(_, bytes)| bytes).collect();
        let config = Config { cases: CASES, failure_persistence: None, ..Config::default() };
        let inputs = (prop::sample::select(seeds), prop::collection::vec(edit(), 0..6))
            .prop_map(|(seed, edits)| mutated(&seed, &edits));
        TestRunner::new(config)
            .run(&inputs, |input| run_one(target, &input).map_err(TestCaseError::fail))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Each corpus folder belongs to a target, so none is left behind when a target goes.
#[test]
fn every_corpus_folder_names_a_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for entry in std::fs::read_dir(root).expect("the corpus folder") {
        let name = entry.expect("an entry").file_name().to_string_lossy().into_owned();
        assert!(TARGETS.iter().any(|t| t.name == name), "corpus/{name} belongs to no target");
    }
}
