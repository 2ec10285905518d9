//! `time`: the current time in an IANA time zone and the conversion of a time of day between
//! two zones, with the tool names and arguments of the official MCP time server
//! (`get_current_time`, `convert_time`), so a host's configuration switches over unchanged.
//! Results come as structured content (with an output schema) and as the same JSON in text.

use jiff::Zoned;
use jiff::civil::Time;
use jiff::tz::TimeZone;
use modelctx::protocol::types::{Implementation, ToolAnnotations};
use modelctx::server::{Args, Json, Server, ServerBuilder, ToolDef};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a tool's argument descriptions name the local time zone; replaced by its name.
const LOCAL_ZONE: &str = "LOCAL_ZONE";

/// Options of `modelctx serve time`.
#[derive(clap::Args, Clone, Debug)]
pub struct TimeArgs {
    /// The IANA time zone the tools offer as local when the user names none (default: this
    /// machine's zone, or UTC when it has no IANA name).
    #[arg(long, value_name = "ZONE")]
    local_timezone: Option<String>,
}

/// `get_current_time` arguments.
#[derive(Deserialize, JsonSchema)]
struct CurrentTimeArgs {
    #[schemars(description = "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). \
        Use 'LOCAL_ZONE' as local timezone if no timezone provided by the user.")]
    timezone: String,
}

/// `convert_time` arguments.
#[derive(Deserialize, JsonSchema)]
struct ConvertTimeArgs {
    #[schemars(description = "Source IANA timezone name (e.g., 'America/New_York', 'Europe/London'). \
        Use 'LOCAL_ZONE' as local timezone if no source timezone provided by the user.")]
    source_timezone: String,
    /// Time to convert in 24-hour format (HH:MM)
    time: String,
    #[schemars(description = "Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco'). \
        Use 'LOCAL_ZONE' as local timezone if no target timezone provided by the user.")]
    target_timezone: String,
}

/// A moment in one time zone.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct TimeResult {
    /// The zone, as asked.
    timezone: String,
    /// ISO 8601 with the zone's offset, to the second (`2026-12-01T18:30:00+01:00`).
    datetime: String,
    /// The English name of the day (`Tuesday`).
    day_of_week: String,
    /// Whether daylight saving time is in effect.
    is_dst: bool,
}

/// One moment in two zones.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct TimeConversion {
    /// The time in the source zone.
    source: TimeResult,
    /// The same moment in the target zone.
    target: TimeResult,
    /// The target's offset less the source's, in hours (`+9.0h`, `-4.5h`, `+5.75h`).
    time_difference: String,
}

/// The zone named `name`, or a message the model can act on.
fn zone(name: &str) -> Result<TimeZone, String> {
    jiff::tz::db().get(name).map_err(|_| {
        format!("Invalid timezone: '{name}' is not an IANA time zone name (such as 'Europe/London' or 'UTC')")
    })
}

/// `zoned` described in its zone, which the caller named `name`.
fn described(zoned: &Zoned, name: &str) -> TimeResult {
    let offset_info = zoned.time_zone().to_offset_info(zoned.timestamp());
    TimeResult {
        timezone: name.to_owned(),
        datetime: zoned.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        day_of_week: zoned.strftime("%A").to_string(),
        is_dst: offset_info.dst().is_dst(),
    }
}

/// `HH:MM` on a 24-hour clock (one or two digits each).
fn time_of_day(text: &str) -> Option<Time> {
    let (hours, minutes) = text.split_once(':')?;
    let field = |digits: &str| {
        let plain = (1..=2).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
        plain.then(|| digits.parse::<i8>().ok()).flatten()
    };
    Time::new(field(hours)?, field(minutes)?, 0, 0).ok()
}

/// `hours` signed, with one decimal when whole and up to two otherwise (`+1.0h`, `+5.75h`).
fn difference(hours: f64) -> String {
    if hours.fract() == 0.0 {
        format!("{hours:+.1}h")
    } else {
        let text = format!("{hours:+.2}");
        format!("{}h", text.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// The current time in `timezone`.
fn current_time(timezone: &str) -> Result<TimeResult, String> {
    Ok(described(&Zoned::now().with_time_zone(zone(timezone)?), timezone))
}

/// `time` today in `source`, and the same moment in `target`.
fn convert(source: &str, time: &str, target: &str) -> Result<TimeConversion, String> {
    let (source_zone, target_zone) = (zone(source)?, zone(target)?);
    let time = time_of_day(time).ok_or("Invalid time format. Expected HH:MM [24-hour format]")?;
    let today = Zoned::now().with_time_zone(source_zone.clone()).date();
    let at_source = today.to_datetime(time).to_zoned(source_zone).map_err(|e| e.to_string())?;
    let at_target = at_source.with_time_zone(target_zone);
    let seconds = at_target.offset().seconds() - at_source.offset().seconds();
    Ok(TimeConversion {
        source: described(&at_source, source),
        target: described(&at_target, target),
        time_difference: difference(f64::from(seconds) / 3600.0),
    })
}

/// The local zone: `asked` when it names one, else this machine's, else UTC.
fn local_zone(asked: Option<&str>) -> Result<String, String> {
    match asked {
        Some(name) => zone(name).map(|_| name.to_owned()),
        None => Ok(TimeZone::system().iana_name().unwrap_or("UTC").to_owned()),
    }
}

/// `def` with `LOCAL_ZONE` in its argument descriptions replaced by `local`.
fn naming_local_zone(def: ToolDef, local: &str) -> ToolDef {
    let mut schema = def.tool().input_schema.clone();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Some(Value::String(description)) = property.get_mut("description") {
                *description = description.replace(LOCAL_ZONE, local);
            }
        }
    }
    def.input_schema(schema)
}

/// Both tools read the clock and the zone database only.
fn reads_only() -> ToolAnnotations {
    ToolAnnotations {
        read_only_hint: Some(true),
        destructive_hint: Some(false),
        idempotent_hint: Some(true),
        open_world_hint: Some(false),
        ..ToolAnnotations::default()
    }
}

/// The time server, not yet built, or why it cannot start (an unknown `--local-timezone`).
pub fn builder(args: &TimeArgs) -> Result<ServerBuilder, String> {
    let local =
        local_zone(args.local_timezone.as_deref()).map_err(|why| format!("--local-timezone: {why}"))?;
    let current = ToolDef::new("get_current_time", |Args(args): Args<CurrentTimeArgs>| async move {
        current_time(&args.timezone).map(Json)
    })
    .description("Get current time in a specific timezone")
    .annotations(reads_only());
    let conversion = ToolDef::new("convert_time", |Args(args): Args<ConvertTimeArgs>| async move {
        convert(&args.source_timezone, &args.time, &args.target_timezone).map(Json)
    })
    .description("Convert time between timezones")
    .annotations(reads_only());
    Ok(Server::with_info(Implementation {
        title: Some("modelctx time".into()),
        description: Some("The current time in any IANA time zone, and conversions between zones".into()),
        ..Implementation::new("modelctx-time", env!("CARGO_PKG_VERSION"))
    })
    .instructions(format!("Times are in IANA time zones; the user's local zone is {local}."))
    .tool(naming_local_zone(current, &local))
    .tool(naming_local_zone(conversion, &local)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_day_take_one_or_two_digits_on_a_24_hour_clock() {
        assert_eq!(time_of_day("09:30"), Some(Time::constant(9, 30, 0, 0)));
        assert_eq!(time_of_day("9:5"), Some(Time::constant(9, 5, 0, 0)));
        assert_eq!(time_of_day("23:59"), Some(Time::constant(23, 59, 0, 0)));
        for bad in ["24:00", "12:60", "12:00:00", " 12:00", "1200", "+1:00", "123:00", ""] {
            assert_eq!(time_of_day(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn differences_are_signed_hours() {
        assert_eq!(difference(1.0), "+1.0h");
        assert_eq!(difference(-5.0), "-5.0h");
        assert_eq!(difference(0.0), "+0.0h");
        assert_eq!(difference(5.75), "+5.75h");
        assert_eq!(difference(8.5), "+8.5h");
        assert_eq!(difference(-6.5), "-6.5h");
    }

    #[test]
    fn a_conversion_keeps_the_moment_and_names_each_zone() {
        let converted = convert("UTC", "12:00", "Asia/Kathmandu").unwrap();
        assert!(converted.source.datetime.ends_with("T12:00:00+00:00"), "{converted:?}");
        assert!(converted.target.datetime.ends_with("T17:45:00+05:45"), "{converted:?}");
        assert_eq!(converted.time_difference, "+5.75h");
        assert_eq!(
            (converted.source.timezone.as_str(), converted.target.timezone.as_str()),
            ("UTC", "Asia/Kathmandu")
        );
        assert!(!converted.target.is_dst);
    }

    #[test]
    fn daylight_saving_time_is_told() {
        let date = jiff::civil::date(2026, 7, 1).at(12, 0, 0, 0);
        let summer = date.to_zoned(zone("Europe/Paris").unwrap()).unwrap();
        let described = described(&summer, "Europe/Paris");
        assert_eq!(described.datetime, "2026-07-01T12:00:00+02:00");
        assert_eq!(described.day_of_week, "Wednesday");
        assert!(described.is_dst);
    }

    #[test]
    fn unknown_zones_and_times_are_named_in_the_error() {
        let unknown = current_time("Mars/Olympus").unwrap_err();
        assert!(unknown.starts_with("Invalid timezone: 'Mars/Olympus'"), "{unknown}");
        let bad = convert("UTC", "25:00", "Europe/Paris").unwrap_err();
        assert_eq!(bad, "Invalid time format. Expected HH:MM [24-hour format]");
        assert!(local_zone(Some("Nowhere")).is_err());
        assert_eq!(local_zone(Some("Asia/Tokyo")).unwrap(), "Asia/Tokyo");
    }
}
