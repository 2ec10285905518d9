//! The standard request headers: `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`.

use serde_json::Value;

use super::value::{decode_header_value, encode_header_value};
use super::{MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, mismatch};
use crate::jsonrpc::ErrorObject;
use crate::{JsonObject, Method};

/// The `params` member that `Mcp-Name` mirrors for `method`: `name` for `tools/call` and
/// `prompts/get`, `uri` for `resources/read`, `taskId` for the tasks extension's
/// `tasks/get`, `tasks/update` and `tasks/cancel` (TX-17). `None` when the method has no
/// `Mcp-Name`.
pub fn name_source(method: &Method) -> Option<&'static str> {
    match method {
        Method::CallTool | Method::GetPrompt => Some("name"),
        Method::ReadResource => Some("uri"),
        Method::GetTask | Method::UpdateTask | Method::CancelTask => Some("taskId"),
        _ => None,
    }
}

/// The string member `key` of `params`, if there is one.
fn member<'p>(params: Option<&'p JsonObject>, key: &str) -> Option<&'p str> {
    params?.get(key).and_then(Value::as_str)
}

/// The `Mcp-Name` value to send for a request, encoded; `None` when the method has no
/// `Mcp-Name` or the params lack its string source member.
pub fn name_header_for(method: &Method, params: Option<&JsonObject>) -> Option<String> {
    member(params, name_source(method)?).map(encode_header_value)
}

/// Checks the standard headers of a 2026-07-28 request against its body (HTTP-34):
/// `MCP-Protocol-Version` against `params._meta["io.modelcontextprotocol/protocolVersion"]`
/// (when the body has one), `Mcp-Method` against `method`, and `Mcp-Name`, once decoded,
/// against its source member (when the body has one; a body without it is an invalid-params
/// problem, not a header one). Values compare case-sensitively.
///
/// `lookup` finds a header by name and must ignore case, as HTTP header maps do
/// ([`super::find_header`] does). The error is `-32020` with a message naming the header
/// and `data.header` holding its name.
pub fn check_standard_headers<'h>(
    method: &Method,
    params: Option<&JsonObject>,
    lookup: impl Fn(&str) -> Option<&'h str>,
) -> Result<(), ErrorObject> {
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object);
    let version = member(meta, crate::meta::PROTOCOL_VERSION);
    let name = name_source(method).and_then(|key| member(params, key));
    check_headers_against(method, version, name, lookup)
}

/// [`check_standard_headers`] against what was read of the body: its `_meta` protocol
/// version and the member `Mcp-Name` mirrors, when it has them.
pub fn check_headers_against<'h>(
    method: &Method,
    version: Option<&str>,
    name: Option<&str>,
    lookup: impl Fn(&str) -> Option<&'h str>,
) -> Result<(), ErrorObject> {
    if let Some(version) = version {
        expect_equal(MCP_PROTOCOL_VERSION, lookup(MCP_PROTOCOL_VERSION), version)?;
    }
    expect_equal(MCP_METHOD, lookup(MCP_METHOD), method.as_str())?;
    if let Some(name) = name {
        let header = lookup(MCP_NAME).ok_or_else(|| mismatch(MCP_NAME, format_args!("is missing")))?;
        let decoded =
            decode_header_value(header).map_err(|e| mismatch(MCP_NAME, format_args!("is malformed: {e}")))?;
        expect_equal(MCP_NAME, Some(&decoded), name)?;
    }
    Ok(())
}

/// A header that must be present and equal to the body's value.
fn expect_equal(header: &str, value: Option<&str>, body: &str) -> Result<(), ErrorObject> {
    match value {
        None => Err(mismatch(header, format_args!("is missing"))),
        Some(value) if value != body => {
            Err(mismatch(header, format_args!("value {value:?} does not match body value {body:?}")))
        }
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::headers::find_header;

    fn object(value: Value) -> JsonObject {
        value.as_object().expect("an object").clone()
    }

    fn modern(extra: Value) -> JsonObject {
        let mut params = object(json!({ "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
        } }));
        params.extend(object(extra));
        params
    }

    #[test]
    fn http_23_name_header_sources() {
        let call = object(json!({ "name": "get_weather" }));
        assert_eq!(name_header_for(&Method::from("tools/call"), Some(&call)).as_deref(), Some("get_weather"));
        assert_eq!(
            name_header_for(&Method::from("prompts/get"), Some(&call)).as_deref(),
            Some("get_weather")
        );
        let read = object(json!({ "uri": "file:///projects/myapp/config.json" }));
        assert_eq!(
            name_header_for(&Method::from("resources/read"), Some(&read)).as_deref(),
            Some("file:///projects/myapp/config.json")
        );
        assert_eq!(name_header_for(&Method::from("tools/list"), Some(&call)), None);
        assert_eq!(name_header_for(&Method::from("tools/call"), None), None);
        assert_eq!(name_header_for(&Method::from("tools/call"), Some(&object(json!({ "name": 1 })))), None);
    }

    #[test]
    fn tx_17_task_methods_name_the_task() {
        let params = object(json!({ "taskId": "786512e2" }));
        for method in ["tasks/get", "tasks/update", "tasks/cancel"].map(Method::from) {
            assert_eq!(name_source(&method), Some("taskId"));
            assert_eq!(name_header_for(&method, Some(&params)).as_deref(), Some("786512e2"));
        }
    }

    #[test]
    fn http_24_name_header_is_sentinel_encoded_when_needed() {
        let params = object(json!({ "name": "météo" }));
        let value = name_header_for(&Method::from("tools/call"), Some(&params)).unwrap();
        assert_eq!(value, "=?base64?bcOpdMOpbw==?=");
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", value.as_str()),
        ];
        let params = modern(json!({ "name": "météo" }));
        check_standard_headers(&Method::from("tools/call"), Some(&params), |n| find_header(&headers, n))
            .unwrap();
    }

    #[test]
    fn http_34_standard_headers_must_be_present_and_match() {
        let params = modern(json!({ "name": "get_weather" }));
        let good =
            [(MCP_PROTOCOL_VERSION, "2026-07-28"), (MCP_METHOD, "tools/call"), (MCP_NAME, "get_weather")];
        check_standard_headers(&Method::from("tools/call"), Some(&params), |n| find_header(&good, n))
            .unwrap();

        for (index, header) in [MCP_PROTOCOL_VERSION, MCP_METHOD, MCP_NAME].into_iter().enumerate() {
            let mut missing = good.to_vec();
            missing.remove(index);
            let error = check_standard_headers(&Method::from("tools/call"), Some(&params), |n| {
                find_header(&missing, n)
            })
            .unwrap_err();
            assert_eq!(error.code.0, -32020);
            assert!(error.message.contains(header) && error.message.contains("missing"), "{error}");
            assert_eq!(error.data, Some(json!({ "header": header })));

            let mut wrong = good.to_vec();
            wrong[index].1 = "other";
            let error = check_standard_headers(&Method::from("tools/call"), Some(&params), |n| {
                find_header(&wrong, n)
            })
            .unwrap_err();
            assert!(error.message.contains("does not match"), "{error}");
            assert_eq!(error.data, Some(json!({ "header": header })));
        }

        let malformed =
            [(MCP_PROTOCOL_VERSION, "2026-07-28"), (MCP_METHOD, "tools/call"), (MCP_NAME, "=?base64?%%?=")];
        let error = check_standard_headers(&Method::from("tools/call"), Some(&params), |n| {
            find_header(&malformed, n)
        })
        .unwrap_err();
        assert!(error.message.contains("malformed"), "{error}");
    }

    #[test]
    fn http_35_header_values_are_case_sensitive() {
        let params = modern(json!({ "name": "Get_Weather" }));
        let headers =
            [(MCP_PROTOCOL_VERSION, "2026-07-28"), (MCP_METHOD, "Tools/Call"), (MCP_NAME, "Get_Weather")];
        assert!(
            check_standard_headers(&Method::from("tools/call"), Some(&params), |n| find_header(&headers, n))
                .is_err()
        );
        let headers =
            [(MCP_PROTOCOL_VERSION, "2026-07-28"), (MCP_METHOD, "tools/call"), (MCP_NAME, "get_weather")];
        assert!(
            check_standard_headers(&Method::from("tools/call"), Some(&params), |n| find_header(&headers, n))
                .is_err()
        );
    }

    #[test]
    fn http_34_methods_without_a_name_need_only_the_method() {
        let params = modern(json!({}));
        let headers = [("MCP-PROTOCOL-VERSION", "2026-07-28"), ("MCP-METHOD", "tools/list")];
        check_standard_headers(&Method::from("tools/list"), Some(&params), |n| find_header(&headers, n))
            .unwrap();
    }
}
