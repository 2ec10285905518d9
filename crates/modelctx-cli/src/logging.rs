//! Log output — `tracing` to stderr, filtered by `RUST_LOG` when set — and OpenTelemetry
//! export when the `OTEL_*` variables ask for it (`modelctx::otel`).

use modelctx::otel::Telemetry;
use tracing_subscriber::filter::{FilterExt, LevelFilter};
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

/// Logging for one command; exports what telemetry is left when dropped.
pub struct Logging {
    telemetry: Option<Telemetry>,
}

impl Drop for Logging {
    fn drop(&mut self) {
        if let Some(telemetry) = self.telemetry.take() {
            telemetry.shutdown();
        }
    }
}

/// Sends log events at `default_level` and above to stderr, unless `RUST_LOG` says otherwise,
/// and spans and metrics where `OTEL_TRACES_EXPORTER` and `OTEL_METRICS_EXPORTER` say.
/// Keep the returned value until the command ends; drop it outside async code.
pub fn init(default_level: tracing::Level) -> Logging {
    let default_level = LevelFilter::from_level(default_level);
    // Directives are parsed only when there are some: without `RUST_LOG` a level is all it
    // takes, and a server a host spawns per session starts without the directive parser.
    let filter = match std::env::var_os("RUST_LOG") {
        Some(_) => FilterExt::boxed(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::default().add_directive(default_level.into())),
        ),
        None => FilterExt::boxed(default_level),
    };
    let telemetry = match Telemetry::from_env("modelctx") {
        Ok(telemetry) => telemetry.is_enabled().then_some(telemetry),
        Err(why) => {
            eprintln!("modelctx: telemetry is off: {why}");
            None
        }
    };
    let otel = telemetry.as_ref().and_then(Telemetry::layer);
    let fmt = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_filter(filter);
    let _ = tracing_subscriber::registry().with(fmt).with(otel).try_init();
    Logging { telemetry }
}
