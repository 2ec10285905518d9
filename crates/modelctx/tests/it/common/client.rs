//! A `Client` on an in-process server, over an in-memory pipe as on stdio.

use modelctx::client::{Client, ClientError, ClientOptions};
use modelctx::protocol::types::Implementation;
use modelctx::server::Server;
use modelctx::transport::serve_connection;

/// A client connected to `server` through an in-memory pipe.
pub async fn connect(server: Server, options: ClientOptions) -> Result<Client, ClientError> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(serve_connection(server, server_read, server_write, std::future::pending()));
    let (read, write) = tokio::io::split(client_end);
    Client::connect(read, write, options).await
}

/// The options of a test client.
pub fn options() -> ClientOptions {
    ClientOptions::new(Implementation::new("test-client", "1"))
}
