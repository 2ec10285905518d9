struct Counter;

#[modelctx::tools]
impl Counter {
    #[tool]
    async fn reset(&mut self) -> String {
        String::new()
    }

    #[tool]
    fn count(&self) -> String {
        String::new()
    }

    #[tool]
    async fn describe() -> String {
        String::new()
    }
}

struct Idle;

#[modelctx::tools]
impl Idle {
    fn nothing(&self) {}
}

struct Configured;

#[modelctx::tools(router)]
impl Configured {
    #[tool]
    async fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}
