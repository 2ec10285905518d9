//! A TLS acceptor for `localhost`, its certificate signed by a certificate authority of the
//! test's own: the acceptor and the authority's certificate (PEM), for a client to trust.

use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// An acceptor offering `alpn`, and the authority that signed its certificate (PEM).
pub fn localhost_acceptor(alpn: &[&[u8]]) -> (tokio_rustls::TlsAcceptor, String) {
    let authority_key = rcgen::KeyPair::generate().unwrap();
    let mut authority_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    authority_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let authority = authority_params.self_signed(&authority_key).unwrap();
    let issuer = rcgen::Issuer::from_params(&authority_params, &authority_key);
    let server_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    let leaf = leaf.signed_by(&server_key, &issuer).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(leaf.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der())),
        )
        .unwrap();
    config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
    (tokio_rustls::TlsAcceptor::from(Arc::new(config)), authority.pem())
}
