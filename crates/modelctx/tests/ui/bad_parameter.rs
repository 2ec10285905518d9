#[modelctx::tool]
async fn takes_a_number(count: u32) -> String {
    count.to_string()
}

fn main() {
    let _ = takes_a_number_tool();
}
