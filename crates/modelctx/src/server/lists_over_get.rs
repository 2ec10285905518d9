//! Lists over HTTP GET, the server's side of it (experimental, `modelctx_protocol::http_lists`):
//! the declaration; `transport::http` serves the GETs of a server that made it.

use modelctx_protocol::http_lists::{CURSOR_QUERY, EXTENSION_ID, LIST_QUERY, ListKind};

use super::{Server, ServerBuilder};

impl ServerBuilder {
    /// Serves the lists over HTTP GET too (experimental, `modelctx_protocol::http_lists`):
    /// `GET <endpoint>?mcp_list=tools` answers the list result with `ETag`, `Cache-Control`
    /// and `304`s; the server declares `io.github.modelctx/http-lists`.
    pub fn lists_over_get(mut self) -> Self {
        let lists: Vec<&str> = ListKind::ALL.iter().map(|kind| kind.selector()).collect();
        let settings = serde_json::json!({"query": LIST_QUERY, "cursorQuery": CURSOR_QUERY, "lists": lists});
        let serde_json::Value::Object(settings) = settings else { unreachable!("an object") };
        self.extensions.insert(EXTENSION_ID.to_owned(), settings);
        self
    }
}

impl Server {
    /// Whether the server serves its lists over HTTP GET ([`ServerBuilder::lists_over_get`]).
    pub fn serves_lists_over_get(&self) -> bool {
        self.inner.extensions.contains_key(EXTENSION_ID)
    }
}
