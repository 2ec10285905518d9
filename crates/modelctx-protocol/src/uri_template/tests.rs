use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

mod level4;

fn template(text: &str) -> UriTemplate {
    UriTemplate::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn parse_error(text: &str) -> (usize, UriTemplateErrorKind) {
    let error = UriTemplate::parse(text).expect_err(text);
    (error.position, error.kind)
}

/// Expands, checks the URI, then matches it back to the same values.
fn round_trip(text: &str, pairs: &[(&str, &str)], uri: &str) {
    let t = template(text);
    let values = map(pairs);
    assert_eq!(t.expand(&values), uri, "{text}");
    assert_eq!(t.match_uri(uri), Some(values), "{text} against {uri}");
}

/// RFC 6570 section 1.2 (levels 1 to 3) and the string examples of section 3.2.
#[test]
fn rfc_6570_expansion_examples() {
    let values = map(&[
        ("var", "value"),
        ("hello", "Hello World!"),
        ("half", "50%"),
        ("empty", ""),
        ("path", "/foo/bar"),
        ("x", "1024"),
        ("y", "768"),
        ("who", "fred"),
        ("base", "http://example.com/home/"),
        ("v", "6"),
    ]);
    let cases = [
        // Level 1
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        // Level 2
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("X{#var}", "X#value"),
        ("X{#hello}", "X#Hello%20World!"),
        // Level 3
        ("map?{x,y}", "map?1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("X{.x,y}", "X.1024.768"),
        ("{/var}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        // Section 3.2, string values
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,undef}", "1024"),
        ("{undef,y}", "768"),
        ("{+half}", "50%25"),
        ("{+base}index", "http://example.com/home/index"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{#half}", "#50%25"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("{.var:3}", ".val"),
        ("{/var:1}", "/v"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;hello:5}", ";hello=Hello"),
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?var:3}", "?var=val"),
        ("{?x,y,undef}", "?x=1024&y=768"),
        ("{&who}", "&who=fred"),
        ("{&var:3}", "&var=val"),
        // Explode does not change string values.
        ("{var*}", "value"),
        ("{?var*}", "?var=value"),
    ];
    for (text, expected) in cases {
        assert_eq!(template(text).expand(&values), expected, "{text}");
    }
}

#[test]
fn expansion_encodes_literals_and_unicode() {
    let values = map(&[("city", "Zürich"), ("q", "a b/ü")]);
    assert_eq!(template("x://a b/{city}").expand(&values), "x://a%20b/Z%C3%BCrich");
    assert_eq!(template("{+q}").expand(&values), "a%20b/%C3%BC");
    assert_eq!(template("%41{q}").expand(&values), "%41a%20b%2F%C3%BC");
    // A prefix counts characters, not bytes.
    assert_eq!(template("{city:2}").expand(&values), "Z%C3%BC");
}

#[test]
fn round_trips_for_every_operator() {
    round_trip("x://a/{var}/b", &[("var", "hello world/é")], "x://a/hello%20world%2F%C3%A9/b");
    round_trip("map?{x,y}", &[("x", "1024"), ("y", "768")], "map?1024,768");
    round_trip("file:///{+path}", &[("path", "a/b c/d.txt")], "file:///a/b%20c/d.txt");
    round_trip("{+path,x}/here", &[("path", "/foo/bar"), ("x", "1024")], "/foo/bar,1024/here");
    round_trip("x://p{#frag}", &[("frag", "sec/1?x")], "x://p#sec/1?x");
    round_trip("x://f/name{.ext}", &[("ext", "txt")], "x://f/name.txt");
    round_trip("X{.x,y}", &[("x", "1024"), ("y", "768")], "X.1024.768");
    round_trip("x://r{/a,b}/end", &[("a", "p"), ("b", "q r")], "x://r/p/q%20r/end");
    round_trip("x://m{;x,y,empty}", &[("x", "1"), ("y", "2"), ("empty", "")], "x://m;x=1;y=2;empty");
    round_trip("x://m{;x,y}/tail", &[("y", "b;c")], "x://m;y=b%3Bc/tail");
    round_trip("x://s{?q,lang}", &[("q", "a&b=c"), ("lang", "en")], "x://s?q=a%26b%3Dc&lang=en");
    round_trip("x://s?fixed=yes{&x}", &[("x", "1024")], "x://s?fixed=yes&x=1024");
    round_trip("x://s{?a}{&b}", &[("b", "2")], "x://s&b=2");
    round_trip("x://s{?a,b}{#f}", &[("a", "1"), ("b", "2"), ("f", "top")], "x://s?a=1&b=2#top");
    round_trip("x://s{?a,b}{#f}", &[("b", "2")], "x://s?b=2");
    round_trip(
        "x://{host}{/seg}{?a,b}{&c}",
        &[("host", "h"), ("seg", "s"), ("a", "1"), ("c", "3")],
        "x://h/s?a=1&c=3",
    );
    round_trip("{var:3}/x", &[("var", "val")], "val/x");
    round_trip("{var*}/{+rest*}", &[("var", "a"), ("rest", "b/c")], "a/b/c");
}

#[test]
fn mcp_resource_templates() {
    let t = template("test://template/{id}/data");
    assert_eq!(t.match_uri("test://template/123/data"), Some(map(&[("id", "123")])));
    for uri in [
        "test://template/1/2/data",
        "test://template//data",
        "test://template/123/data/x",
        "test://template/123/dat",
        "test://template/123/data?x=1",
        "test://template/12?3/data",
        "Test://template/123/data",
        "",
    ] {
        assert_eq!(t.match_uri(uri), None, "{uri}");
    }

    let t = template("file:///{+path}");
    assert_eq!(t.match_uri("file:///a/b/c.txt"), Some(map(&[("path", "a/b/c.txt")])));
    assert_eq!(t.match_uri("file:///"), None);
    assert_eq!(t.match_uri("file://a"), None);

    let t = template("weather://forecast/{city}{?units,days}");
    let all = Some(map(&[("city", "paris"), ("units", "metric"), ("days", "3")]));
    assert_eq!(t.match_uri("weather://forecast/paris?units=metric&days=3"), all);
    assert_eq!(t.match_uri("weather://forecast/paris?days=3&units=metric"), all);
    assert_eq!(
        t.match_uri("weather://forecast/paris?days=3"),
        Some(map(&[("city", "paris"), ("days", "3")]))
    );
    assert_eq!(t.match_uri("weather://forecast/paris"), Some(map(&[("city", "paris")])));
    assert_eq!(t.match_uri("weather://forecast/paris?units"), Some(map(&[("city", "paris"), ("units", "")])));
    for uri in [
        "weather://forecast/paris?foo=1",
        "weather://forecast/paris?days=1&days=2",
        "weather://forecast/paris?",
        "weather://forecast/paris?days=3&",
        "weather://forecast/paris?&days=3",
        "weather://forecast/paris?days=3#top",
        "weather://forecast/paris#top",
        "weather://forecast/paris/x",
        "weather://forecast/?days=3",
    ] {
        assert_eq!(t.match_uri(uri), None, "{uri}");
    }
}

#[test]
fn segment_and_greedy_rules() {
    let t = template("{+path}/data");
    assert_eq!(t.match_uri("a/data/b/data"), Some(map(&[("path", "a/data/b")])));
    let t = template("{+a}/{b}/end");
    assert_eq!(t.match_uri("p/q/r/end"), Some(map(&[("a", "p/q"), ("b", "r")])));
    // `{name}` stops at the `.` of the label expression that follows.
    let t = template("file:///{name}{.ext}");
    assert_eq!(t.match_uri("file:///a.tar.gz"), Some(map(&[("name", "a"), ("ext", "tar.gz")])));
    assert_eq!(t.match_uri("file:///a"), Some(map(&[("name", "a")])));
    // A simple value stops at the next literal character.
    let t = template("{a}-{b}");
    assert_eq!(t.match_uri("x-y-z"), Some(map(&[("a", "x"), ("b", "y-z")])));
    assert_eq!(template("{a}-x/{b}").match_uri("p-q-x/r"), None);
    // Lists fill from the left; adjacent expressions: the first takes all it can.
    assert_eq!(template("{x,y}").match_uri("768"), Some(map(&[("x", "768")])));
    assert_eq!(template("{a}{b}").match_uri("abc"), Some(map(&[("a", "ab"), ("b", "c")])));
    // `+` stops before a query or fragment expression.
    let t = template("{+path}{?q}");
    assert_eq!(t.match_uri("a/b?q=1"), Some(map(&[("path", "a/b"), ("q", "1")])));
    let t = template("{+path}{#frag}");
    assert_eq!(t.match_uri("a/b#c/d"), Some(map(&[("path", "a/b"), ("frag", "c/d")])));
    // `;` items come in the template's order, each optional.
    let t = template("x{;a,b}");
    assert_eq!(t.match_uri("x;b=2"), Some(map(&[("b", "2")])));
    assert_eq!(t.match_uri("x;b=2;a=1"), None);
    assert_eq!(t.match_uri("x;c=2"), None);
    // Literals match exactly, or as expansion encodes them.
    let t = template("x://a b/{id}");
    assert_eq!(t.match_uri("x://a b/1"), Some(map(&[("id", "1")])));
    assert_eq!(t.match_uri("x://a%20b/1"), Some(map(&[("id", "1")])));
    assert_eq!(t.match_uri("x://a%20B/1"), None);
    assert_eq!(template("x://ab/{id}").match_uri("x://a%62/1"), None);
}

#[test]
fn values_are_percent_decoded() {
    let t = template("x://{id}/{+rest}{?q}");
    assert_eq!(
        t.match_uri("x://a%20b/c%2Fd/%E2%82%AC?q=%C3%A9%26+"),
        Some(map(&[("id", "a b"), ("rest", "c/d/€"), ("q", "é&+")]))
    );
    assert_eq!(t.match_uri("x://Zürich/x"), Some(map(&[("id", "Zürich"), ("rest", "x")])));
    for uri in
        ["x://a%zzb/c", "x://a%2/c", "x://a%/c", "x://%FF/c", "x://a/%C3", "x://a/b?q=%G1", "x://a/b?q=%FF"]
    {
        assert_eq!(t.match_uri(uri), None, "{uri}");
    }
}

#[test]
fn parse_errors_name_the_position_and_the_problem() {
    use UriTemplateErrorKind::*;
    assert_eq!(parse_error("a{b"), (1, UnclosedExpression));
    assert_eq!(parse_error("{a{b}"), (0, UnclosedExpression));
    assert_eq!(parse_error("a}b"), (1, UnexpectedCloseBrace));
    assert_eq!(parse_error("x{}"), (1, EmptyExpression));
    assert_eq!(parse_error("{=a}"), (1, ReservedOperator('=')));
    assert_eq!(parse_error("{|a}"), (1, ReservedOperator('|')));
    assert_eq!(parse_error("{a,}"), (3, MissingVariableName));
    assert_eq!(parse_error("{a,,b}"), (3, MissingVariableName));
    assert_eq!(parse_error("{,a}"), (1, ReservedOperator(',')));
    assert_eq!(parse_error("{+}"), (2, MissingVariableName));
    assert_eq!(parse_error("{a-b}"), (2, InvalidCharacter('-')));
    assert_eq!(parse_error("{.a.}"), (3, InvalidCharacter('.')));
    assert_eq!(parse_error("{.a}{.b}{..c}"), (10, InvalidCharacter('.')));
    assert_eq!(parse_error("{a..b}"), (2, InvalidCharacter('.')));
    assert_eq!(parse_error("{%zz}"), (1, InvalidCharacter('%')));
    assert_eq!(parse_error("{é}"), (1, InvalidCharacter('é')));
    assert_eq!(parse_error("{a b}"), (2, InvalidCharacter(' ')));
    assert_eq!(parse_error("{a*b}"), (3, InvalidCharacter('b')));
    assert_eq!(parse_error("{a:0}"), (2, InvalidPrefixLength));
    assert_eq!(parse_error("{a:10000}"), (2, InvalidPrefixLength));
    assert_eq!(parse_error("{a:}"), (2, InvalidPrefixLength));
    assert_eq!(parse_error("{a:3*}"), (2, InvalidPrefixLength));
    assert_eq!(parse_error("{a}/{a}"), (5, DuplicateVariable("a".to_owned())));
    assert_eq!(parse_error("{?x,y}{&z,x}"), (10, DuplicateVariable("x".to_owned())));
    assert_eq!(parse_error("{a,a:2}"), (3, DuplicateVariable("a".to_owned())));

    let error = UriTemplate::parse("x://{id").unwrap_err();
    assert_eq!(error.to_string(), "invalid URI template at byte 4: '{' has no matching '}'");
    assert!(UriTemplate::parse("{a:b}").unwrap_err().to_string().contains("1 to 9999"));
}

#[test]
fn valid_variable_names_and_modifiers() {
    let t = template("{a.b_1,%41B}{/c:9999}{+d*}x{#e}{;f}{?g}{&h}");
    assert_eq!(t.variables().collect::<Vec<_>>(), ["a.b_1", "%41B", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(template("no expressions").variables().count(), 0);
}

#[test]
fn standard_traits() {
    let text = "weather://forecast/{city}{?units,days}";
    let t: UriTemplate = text.parse().unwrap();
    assert_eq!(t.as_str(), text);
    assert_eq!(t.to_string(), text);
    assert_eq!(format!("{t:?}"), format!("UriTemplate({text:?})"));
    assert_eq!(t.clone(), t);
    assert_ne!(t, template("weather://forecast/{city}"));
    assert!("{".parse::<UriTemplate>().is_err());
}

/// The example in the module documentation.
#[test]
fn module_example() {
    let t = template("weather://forecast/{city}{?units,days}");
    let values = t.match_uri("weather://forecast/S%C3%A3o%20Paulo?days=3").unwrap();
    assert_eq!(values["city"], "São Paulo");
    assert_eq!(values["days"], "3");
    assert!(!values.contains_key("units"));
    assert_eq!(t.expand(&map(&[("city", "Zürich")])), "weather://forecast/Z%C3%BCrich");

    let t = template("files://{owner}{/path*}{?tag*}");
    let values = BTreeMap::from([
        ("owner".to_owned(), TemplateValue::from("ana")),
        ("path".to_owned(), TemplateValue::from(["docs", "a b.md"])),
        ("tag".to_owned(), TemplateValue::from(["x", "y"])),
    ]);
    assert_eq!(t.expand_values(&values), "files://ana/docs/a%20b.md?tag=x&tag=y");
}

/// Inputs that make a backtracking matcher take exponential time. The Pike VM does at most
/// (URI length) x (program length) steps, so these finish quickly by construction.
#[test]
fn adversarial_inputs_stay_linear() {
    let many_reserved: String = (0..40).map(|i| format!("{{+v{i}}}/")).collect();
    let t = template(&format!("x://{many_reserved}end"));
    let long = format!("x://{}", "a/".repeat(10_000));
    assert_eq!(t.match_uri(&format!("{long}nope")), None);
    let matched = t.match_uri(&format!("{long}end")).unwrap();
    assert_eq!(matched.len(), 40);
    assert_eq!(matched["v0"].len(), 2 * (10_000 - 39) - 1);
    assert_eq!(matched["v39"], "a");

    let adjacent: String = (0..30).map(|i| format!("{{s{i}}}")).collect();
    let t = template(&adjacent);
    assert_eq!(t.match_uri(&format!("{}/", "a".repeat(10_000))), None);
    assert_eq!(t.match_uri(&"a".repeat(10_000)).map(|m| m.len()), Some(30));

    let lists: String = (0..10).map(|i| format!("{{.a{i},b{i},c{i}}}{{;d{i},e{i}}}")).collect();
    let t = template(&format!("x:{lists}"));
    assert_eq!(t.match_uri(&format!("x:{}!", ".a;d=".repeat(5_000))), None);

    let t = template("x://s/{id}{?a,b}");
    assert_eq!(t.match_uri(&format!("x://s/1?{}b", "a=1&".repeat(10_000))), None);
    let t = template("x://{#f}{?a}");
    let uri = format!("x://#{}", "?a=".repeat(10_000));
    assert_eq!(t.match_uri(&uri).map(|m| m["f"].len()), Some(30_000));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn parse_and_match_never_panic(text in ".{0,40}", uri in ".{0,60}") {
        if let Ok(t) = UriTemplate::parse(&text) {
            let _ = t.match_uri(&uri);
            let _ = t.expand(&map(&[("a", &uri)]));
        }
    }

    #[test]
    fn templates_match_arbitrary_uris_without_panicking(
        text in "(x:|/|[a-c]|\\{[+#./;?&]?[a-c](,[d-f])?\\}){0,8}",
        uri in "[a-c/?&=#;.,%0-9A-F]{0,40}",
    ) {
        if let Ok(t) = UriTemplate::parse(&text) {
            let _ = t.match_uri(&uri);
        }
    }

    #[test]
    fn expand_then_match_returns_the_values(
        segment in ".+",
        path in "[^?#%]+",
        label in ".*",
        param in ".*",
        query in ".*",
        cont in ".*",
    ) {
        let t = template("x://h/{segment}/{+path}/end{.label}{;param}{?query}{&cont}");
        let values = map(&[
            ("segment", &segment),
            ("path", &path),
            ("label", &label),
            ("param", &param),
            ("query", &query),
            ("cont", &cont),
        ]);
        let uri = t.expand(&values);
        prop_assert_eq!(t.match_uri(&uri), Some(values), "{}", uri);
    }
}
