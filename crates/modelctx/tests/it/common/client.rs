//! A `Client` on an in-process server, over an in-memory pipe as on stdio; or on a server
//! scripted line by line.

use modelctx::client::{Client, ClientError, ClientOptions};
use modelctx::protocol::types::Implementation;
use modelctx::server::Server;
use modelctx::transport::serve_connection;
use serde_json::json;

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

/// A server scripted line by line, as an unusual or misbehaving server would answer: it
/// discovers as 2026-07-28 with `capabilities`, and `respond` gives, for each other method and
/// its params, the notifications to send first and the result.
pub async fn scripted(
    capabilities: serde_json::Value,
    respond: impl FnMut(&str, &serde_json::Value) -> (Vec<serde_json::Value>, serde_json::Value) + Send + 'static,
) -> Client {
    scripted_with(capabilities, options(), respond).await
}

/// [`scripted`], for a client set up with `client_options`.
pub async fn scripted_with(
    capabilities: serde_json::Value,
    client_options: ClientOptions,
    mut respond: impl FnMut(&str, &serde_json::Value) -> (Vec<serde_json::Value>, serde_json::Value)
    + Send
    + 'static,
) -> Client {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, mut write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: serde_json::Value = serde_json::from_str(&line).unwrap();
            let Some(method) = request["method"].as_str() else { continue };
            let (notes, result) = match method {
                "server/discover" => (
                    Vec::new(),
                    json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": capabilities}),
                ),
                _ if request.get("id").is_none() => continue,
                method => respond(method, &request["params"]),
            };
            for note in notes {
                write.write_all(format!("{note}\n").as_bytes()).await.unwrap();
            }
            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
            write.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
        }
    });
    let (read, write) = tokio::io::split(client_end);
    Client::connect(read, write, client_options).await.unwrap()
}
