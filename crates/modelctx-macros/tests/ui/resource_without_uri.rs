#[modelctx::resource(name = "nowhere")]
async fn nowhere(
    _request: modelctx::server::ResourceRequest,
) -> Result<Vec<modelctx::protocol::types::TextOrBlob>, modelctx::server::ResourceError> {
    Ok(Vec::new())
}

fn main() {}
