#[modelctx::tool]
async fn greet(modelctx::server::Args(name): modelctx::server::Args<String>, loudly: bool) -> String {
    if loudly { name.to_uppercase() } else { name }
}

fn main() {}
