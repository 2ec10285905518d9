#[modelctx::tool(readonly)]
async fn reads() -> String {
    String::new()
}

fn main() {}
