//! Log output: `tracing` to stderr, filtered by `RUST_LOG` when set.

/// Sends log events at `default_level` and above to stderr, unless `RUST_LOG` says otherwise.
pub fn init(default_level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).try_init();
}
