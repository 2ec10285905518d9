//! `Mcp-Param-{Name}` headers at call time: what a client sends, and how a server checks
//! them against the body.

use serde_json::{Number, Value};

use super::schema::McpParamHeader;
use super::value::{argument_text, decode_header_value, encode_header_value};
use super::{MAX_SAFE_INTEGER, mismatch};
use crate::JsonObject;
use crate::jsonrpc::ErrorObject;

/// The `Mcp-Param-{Name}` headers a client adds to a `tools/call` (HTTP-25, HTTP-28): one
/// per annotated argument with a value, encoded; none for an absent or `null` argument.
pub fn param_headers_for_call(
    params: &[McpParamHeader],
    arguments: Option<&JsonObject>,
) -> Vec<(String, String)> {
    params
        .iter()
        .filter_map(|param| {
            let value = arguments.and_then(|a| param.argument(a))?;
            let text = argument_text(value)?;
            Some((param.header_name(), encode_header_value(&text)))
        })
        .collect()
}

/// Checks the `Mcp-Param-{Name}` headers of a `tools/call` against its `arguments`
/// (HTTP-30, HTTP-33, HTTP-34, HTTP-36). For each annotated argument, a header is expected
/// exactly when the argument has a value a header can carry (present, not `null`, not an
/// array or object). It fails when that header is missing, present without a value in the
/// body, malformed (bad characters or a bad sentinel), or, once decoded, different from the
/// body: strings compare exactly, booleans as `true`/`false`, integers by value (`42.0`
/// equals `42`); an integer outside ±(2^53−1) is refused.
///
/// `lookup` finds a header by name and must ignore case, as HTTP header maps do
/// ([`super::find_header`] does). The error is `-32020` with a message naming the header
/// and `data.header` holding its name. Headers that no annotation names are not looked at
/// (HTTP-32).
pub fn check_param_headers<'h>(
    params: &[McpParamHeader],
    arguments: Option<&JsonObject>,
    lookup: impl Fn(&str) -> Option<&'h str>,
) -> Result<(), ErrorObject> {
    for param in params {
        let header = param.header_name();
        let body = arguments.and_then(|a| param.argument(a)).filter(|value| argument_text(value).is_some());
        let path = param.argument_path();
        match (body, lookup(&header)) {
            (None, None) => {}
            (Some(_), None) => {
                return Err(mismatch(&header, format_args!("is missing but {path} has a value")));
            }
            (None, Some(_)) => {
                return Err(mismatch(&header, format_args!("is present but {path} is absent or null")));
            }
            (Some(body), Some(raw)) => {
                let decoded = decode_header_value(raw)
                    .map_err(|e| mismatch(&header, format_args!("is malformed: {e}")))?;
                match difference(body, &decoded) {
                    None => {}
                    Some(Difference::Value) => {
                        return Err(mismatch(
                            &header,
                            format_args!("value {decoded:?} does not match body value {body} at {path}"),
                        ));
                    }
                    Some(Difference::UnsafeInteger) => {
                        return Err(mismatch(
                            &header,
                            format_args!("cannot carry {path} = {body}: integers must be within ±(2^53−1)"),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Why a decoded header value and the body value disagree.
enum Difference {
    /// The values differ.
    Value,
    /// The body holds an integer outside ±(2^53−1), which no header may carry.
    UnsafeInteger,
}

/// How a decoded header value differs from the body value, or `None` when they agree.
fn difference(body: &Value, header: &str) -> Option<Difference> {
    let same = match body {
        Value::Number(number) => return number_difference(number, header),
        Value::String(text) => text == header,
        Value::Bool(flag) => header == if *flag { "true" } else { "false" },
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    };
    (!same).then_some(Difference::Value)
}

/// Compares a header with a numeric body value. Integers (`42`, `42.0`) must be within the
/// safe range and equal the header read as a decimal with an optional all-zero fraction;
/// other numbers compare as `f64`.
fn number_difference(number: &Number, header: &str) -> Option<Difference> {
    let integer = match (number.as_i64(), number.as_u64(), number.as_f64()) {
        (Some(i), _, _) => Some(i128::from(i)),
        (_, Some(u), _) => Some(i128::from(u)),
        (_, _, Some(f)) if f.fract() == 0.0 && f.abs() <= MAX_SAFE_INTEGER as f64 => Some(f as i128),
        (_, _, Some(f)) if f.fract() == 0.0 => return Some(Difference::UnsafeInteger),
        _ => None,
    };
    let same = match integer {
        Some(value) if value.abs() > i128::from(MAX_SAFE_INTEGER) => {
            return Some(Difference::UnsafeInteger);
        }
        Some(value) => parse_integer(header) == Some(value),
        None => header.parse::<f64>().is_ok_and(|h| h.is_finite() && Some(h) == number.as_f64()),
    };
    (!same).then_some(Difference::Value)
}

/// Reads `[+-]digits[.zeros]` exactly; `None` for anything else (no exponents, no
/// non-zero fraction, no whitespace).
fn parse_integer(text: &str) -> Option<i128> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, "0"));
    let digits = whole.strip_prefix(['+', '-']).unwrap_or(whole);
    let valid = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !fraction.is_empty()
        && fraction.bytes().all(|b| b == b'0');
    if valid { whole.parse().ok() } else { None }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::headers::{find_header, validate_x_mcp_headers};

    fn params() -> Vec<McpParamHeader> {
        let schema = json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "limit": { "type": "integer", "x-mcp-header": "Limit" },
            "dry": { "type": "boolean", "x-mcp-header": "Dry" },
            "query": { "type": "string" }
        } });
        validate_x_mcp_headers(schema.as_object().unwrap()).unwrap()
    }

    fn args(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    fn check(arguments: &JsonObject, headers: &[(&str, &str)]) -> Result<(), ErrorObject> {
        check_param_headers(&params(), Some(arguments), |n| find_header(headers, n))
    }

    #[test]
    fn http_25_client_mirrors_annotated_arguments() {
        let arguments = args(json!({ "region": "us-west1", "limit": 42, "dry": false, "query": "SELECT 1" }));
        let mut sent = param_headers_for_call(&params(), Some(&arguments));
        sent.sort();
        assert_eq!(
            sent,
            [
                ("Mcp-Param-Dry".to_owned(), "false".to_owned()),
                ("Mcp-Param-Limit".to_owned(), "42".to_owned()),
                ("Mcp-Param-Region".to_owned(), "us-west1".to_owned()),
            ]
        );
        let pairs: Vec<(&str, &str)> = sent.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        check(&arguments, &pairs).unwrap();
    }

    #[test]
    fn http_28_absent_or_null_arguments_send_no_header() {
        let arguments = args(json!({ "region": null }));
        assert!(param_headers_for_call(&params(), Some(&arguments)).is_empty());
        assert!(param_headers_for_call(&params(), None).is_empty());
        check(&arguments, &[]).unwrap();
        check_param_headers(&params(), None, |_| None).unwrap();
    }

    #[test]
    fn http_34_missing_header_with_a_body_value_is_rejected() {
        let error = check(&args(json!({ "region": "us-west1" })), &[]).unwrap_err();
        assert_eq!(error.code.0, -32020);
        assert!(error.message.contains("Mcp-Param-Region") && error.message.contains("missing"), "{error}");
        assert_eq!(error.data, Some(json!({ "header": "Mcp-Param-Region" })));
    }

    #[test]
    fn http_34_header_without_a_body_value_is_rejected() {
        for arguments in [json!({}), json!({ "region": null })] {
            let error = check(&args(arguments), &[("Mcp-Param-Region", "us-west1")]).unwrap_err();
            assert!(
                error.message.contains("Mcp-Param-Region") && error.message.contains("absent"),
                "{error}"
            );
        }
    }

    #[test]
    fn http_34_different_values_are_rejected() {
        let arguments = args(json!({ "region": "us-west1", "limit": 42, "dry": true }));
        let good = [("Mcp-Param-Region", "us-west1"), ("Mcp-Param-Limit", "42"), ("Mcp-Param-Dry", "true")];
        check(&arguments, &good).unwrap();
        for (index, wrong) in ["us-east1", "43", "false"].into_iter().enumerate() {
            let mut headers = good;
            headers[index].1 = wrong;
            let error = check(&arguments, &headers).unwrap_err();
            assert!(
                error.message.contains(good[index].0) && error.message.contains("does not match"),
                "{error}"
            );
        }
        let mut headers = good;
        headers[2].1 = "True";
        assert!(check(&arguments, &headers).is_err(), "values are case-sensitive");
    }

    #[test]
    fn http_30_sentinel_values_are_decoded_before_comparing() {
        let arguments = args(json!({ "region": "Zürich" }));
        check(&arguments, &[("Mcp-Param-Region", "=?base64?WsO8cmljaA==?=")]).unwrap();
        let error = check(&arguments, &[("Mcp-Param-Region", "Zürich")]).unwrap_err();
        assert!(error.message.contains("malformed"), "{error}");
        let error = check(&arguments, &[("Mcp-Param-Region", "=?base64?WsO8?cmljaA?=")]).unwrap_err();
        assert!(error.message.contains("malformed"), "{error}");
    }

    #[test]
    fn http_33_invalid_characters_are_rejected() {
        let arguments = args(json!({ "region": "a\nb" }));
        let error = check(&arguments, &[("Mcp-Param-Region", "a\nb")]).unwrap_err();
        assert!(error.message.contains("malformed"), "{error}");
        check(&arguments, &[("Mcp-Param-Region", "=?base64?YQpi?=")]).unwrap();
    }

    #[test]
    fn http_35_header_names_ignore_case() {
        let arguments = args(json!({ "region": "us-west1" }));
        check(&arguments, &[("MCP-PARAM-REGION", "us-west1")]).unwrap();
        check(&arguments, &[("mcp-param-region", "us-west1")]).unwrap();
    }

    #[test]
    fn http_36_integers_compare_numerically() {
        let arguments = args(json!({ "limit": 42 }));
        for same in ["42", "42.0", "42.000", "+42", "042"] {
            check(&arguments, &[("Mcp-Param-Limit", same)]).unwrap_or_else(|e| panic!("{same}: {e}"));
        }
        for different in ["42.5", "4.2e1", "43", "", " 42", "forty-two", "0x2A"] {
            assert!(check(&arguments, &[("Mcp-Param-Limit", different)]).is_err(), "{different:?}");
        }
        check(&args(json!({ "limit": 42.0 })), &[("Mcp-Param-Limit", "42")]).unwrap();
        check(&args(json!({ "limit": -7 })), &[("Mcp-Param-Limit", "-7")]).unwrap();
    }

    #[test]
    fn http_26_integers_beyond_the_safe_range_are_refused() {
        let max = MAX_SAFE_INTEGER.to_string();
        check(&args(json!({ "limit": MAX_SAFE_INTEGER })), &[("Mcp-Param-Limit", &max)]).unwrap();
        let beyond = (MAX_SAFE_INTEGER + 1).to_string();
        let error = check(&args(json!({ "limit": MAX_SAFE_INTEGER + 1 })), &[("Mcp-Param-Limit", &beyond)])
            .unwrap_err();
        assert!(error.message.contains("2^53"), "{error}");
        assert!(check(&args(json!({ "limit": 1e300 })), &[("Mcp-Param-Limit", "1e300")]).is_err());
    }

    #[test]
    fn http_32_unannotated_headers_are_ignored() {
        let arguments = args(json!({ "region": "us-west1" }));
        check(&arguments, &[("Mcp-Param-Region", "us-west1"), ("Mcp-Param-Other", "\u{1}")]).unwrap();
    }

    #[test]
    fn nested_arguments_follow_the_path() {
        let schema = json!({ "type": "object", "properties": { "target": { "type": "object",
            "properties": { "tenant": { "type": "integer", "x-mcp-header": "Tenant" } } } } });
        let params = validate_x_mcp_headers(schema.as_object().unwrap()).unwrap();
        let arguments = args(json!({ "target": { "tenant": 7 } }));
        assert_eq!(
            param_headers_for_call(&params, Some(&arguments)),
            [("Mcp-Param-Tenant".to_owned(), "7".to_owned())]
        );
        let headers = [("mcp-param-tenant", "7")];
        check_param_headers(&params, Some(&arguments), |n| find_header(&headers, n)).unwrap();
        let error = check_param_headers(&params, Some(&arguments), |_| None).unwrap_err();
        assert!(error.message.contains("arguments.target.tenant"), "{error}");
    }
}
