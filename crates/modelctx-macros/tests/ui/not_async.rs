#[modelctx::tool]
fn not_async() -> String {
    String::new()
}

fn main() {}
