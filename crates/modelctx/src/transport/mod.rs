//! Transports: how bytes reach a [`crate::server::Server`].

mod connection;
pub mod stdio;

pub use connection::serve_connection;
