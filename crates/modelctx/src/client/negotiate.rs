//! Settling the protocol era with a server (CHECKLIST §10.1).

use modelctx_protocol::Method;
use modelctx_protocol::era::client::EraVerdict;
use modelctx_protocol::{Era, JsonObject, ProtocolVersion, meta, v2025, v2026};
use serde_json::json;

use super::link::Link;
use super::wire::{parse, with_meta};
use super::{ClientError, ClientOptions, EraMode, ServerDescription};

/// The versions this client speaks, newest first.
pub(crate) const VERSIONS: [ProtocolVersion; 2] =
    [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25];

/// Settles the era: a `server/discover` probe unless pinned to legacy, then `initialize`
/// when the verdict is legacy.
pub(super) async fn negotiate(
    link: &Link,
    options: &ClientOptions,
) -> Result<ServerDescription, ClientError> {
    let probe = match options.mode {
        EraMode::Legacy => false,
        EraMode::Modern => true,
        EraMode::Auto => !link.known_legacy(),
    };
    if probe {
        let mut version = ProtocolVersion::V2026_07_28;
        // Only the server's own answer makes a legacy verdict worth remembering: a probe that
        // timed out says nothing lasting about the server.
        let mut answered = false;
        // A refused probe may name the version to retry with; one retry is enough.
        for _ in 0..2 {
            let params = with_meta(JsonObject::new(), version, options, None);
            let probed = link.probe(params, version, &VERSIONS, options.probe_timeout).await?;
            answered = probed.answered;
            match (probed.verdict, probed.result) {
                (EraVerdict::Modern(chosen), Some(result)) if chosen == version => {
                    link.settle(version);
                    return discovered(version, result);
                }
                // Refused (with the version to use, or a transient modern error): once more.
                (EraVerdict::Modern(chosen), _) => version = chosen,
                (EraVerdict::Incompatible { supported }, _) => {
                    return Err(ClientError::incompatible(supported));
                }
                _ => break,
            }
        }
        if options.mode == EraMode::Modern {
            return Err(ClientError::incompatible(Vec::new()));
        }
        let server = initialize(link, options).await?;
        if answered {
            link.found_legacy();
        }
        return Ok(server);
    }
    initialize(link, options).await
}

fn discovered(version: ProtocolVersion, result: JsonObject) -> Result<ServerDescription, ClientError> {
    let info = result
        .get("_meta")
        .and_then(|m| m.get(meta::SERVER_INFO))
        .and_then(|info| serde_json::from_value(info.clone()).ok());
    let result: v2026::DiscoverResult = parse(&Method::Discover, result)?;
    Ok(ServerDescription {
        version,
        capabilities: result.capabilities.into(),
        info,
        instructions: result.instructions,
    })
}

async fn initialize(link: &Link, options: &ClientOptions) -> Result<ServerDescription, ClientError> {
    let params = json!({
        "protocolVersion": ProtocolVersion::V2025_11_25.to_string(),
        "capabilities": v2025::ClientCapabilities::from(options.handlers.capabilities()),
        "clientInfo": options.info,
    });
    let result =
        link.request(&Method::Initialize, params.as_object().cloned(), options.request_timeout).await?;
    let result: v2025::InitializeResult = parse(&Method::Initialize, result)?;
    let version = ProtocolVersion::parse(&result.protocol_version)
        .filter(|version| version.era() == Era::Legacy)
        .ok_or_else(|| ClientError::incompatible(vec![result.protocol_version.clone()]))?;
    link.settle(version);
    link.notify(&Method::Initialized, None).await?;
    link.open_session(options.probe_timeout).await;
    Ok(ServerDescription {
        version,
        capabilities: result.capabilities.into(),
        info: Some(result.server_info),
        instructions: result.instructions,
    })
}
