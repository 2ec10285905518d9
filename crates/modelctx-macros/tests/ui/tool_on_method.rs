struct Greeter;

impl Greeter {
    #[modelctx::tool]
    async fn greet(&self, name: String) -> String {
        name
    }
}

fn main() {}
