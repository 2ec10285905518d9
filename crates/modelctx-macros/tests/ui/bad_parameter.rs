// A parameter written as a pattern is an extractor, and a tuple is none.
#[modelctx::tool]
async fn takes_a_pair((first, second): (u32, u32)) -> String {
    (first + second).to_string()
}

fn main() {
    let _ = takes_a_pair_tool();
}
