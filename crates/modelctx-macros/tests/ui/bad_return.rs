#[modelctx::tool]
async fn returns_a_number() -> u32 {
    7
}

fn main() {
    let _ = returns_a_number_tool();
}
