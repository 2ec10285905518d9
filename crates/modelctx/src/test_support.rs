//! What the crate's own unit tests share.

/// `bytes` cut at `cuts` (any order, any values; those past the end cut at the end): the
/// chunks a stream may deliver them in.
pub(crate) fn chunks_at(bytes: &[u8], cuts: Vec<usize>) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.into_iter().map(|cut| cut.min(bytes.len())).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut from = 0;
    for cut in cuts {
        chunks.push(bytes[from..cut].to_vec());
        from = cut;
    }
    chunks.push(bytes[from..].to_vec());
    chunks
}
