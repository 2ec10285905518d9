#[modelctx::tool(name = "greet someone")]
async fn greet() -> String {
    String::new()
}

#[modelctx::tool(name = "")]
async fn nameless() -> String {
    String::new()
}

#[modelctx::tool]
async fn grüßen() -> String {
    String::new()
}

struct Greeter;

#[modelctx::tools]
impl Greeter {
    #[tool(name = "greet/loudly")]
    async fn loudly(&self) -> String {
        String::new()
    }
}

fn main() {}
