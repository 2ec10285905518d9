//! Level 4 expansion: lists and associative arrays, with `*` and `:N`.

use std::collections::BTreeMap;

use super::template;
use crate::uri_template::TemplateValue;

fn values(pairs: Vec<(&str, TemplateValue)>) -> BTreeMap<String, TemplateValue> {
    pairs.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
}

/// The variables of RFC 6570 section 3.2 (section 1.2 uses a subset of them).
fn rfc_values() -> BTreeMap<String, TemplateValue> {
    values(vec![
        ("count", ["one", "two", "three"].into()),
        ("dom", ["example", "com"].into()),
        ("dub", "me/too".into()),
        ("hello", "Hello World!".into()),
        ("half", "50%".into()),
        ("var", "value".into()),
        ("who", "fred".into()),
        ("base", "http://example.com/home/".into()),
        ("path", "/foo/bar".into()),
        ("list", ["red", "green", "blue"].into()),
        ("keys", [("semi", ";"), ("dot", "."), ("comma", ",")].into()),
        ("v", "6".into()),
        ("x", "1024".into()),
        ("y", "768".into()),
        ("empty", "".into()),
        ("empty_keys", TemplateValue::Map(Vec::new())),
    ])
}

fn check(values: &BTreeMap<String, TemplateValue>, cases: &[(&str, &str)]) {
    for (text, expected) in cases {
        assert_eq!(template(text).expand_values(values), *expected, "{text}");
    }
}

/// RFC 6570 section 1.2, level 4. `{/var:1,var}` (`/v/value`) names `var` twice, which
/// `UriTemplate::parse` rejects.
#[test]
fn rfc_6570_level_4_examples() {
    check(
        &rfc_values(),
        &[
            // String expansion with value modifiers
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
            // Reserved expansion with value modifiers
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+list*}", "red,green,blue"),
            ("{+keys}", "semi,;,dot,.,comma,,"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
            // Fragment expansion with value modifiers
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list}", "#red,green,blue"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
            // Label expansion, dot-prefixed
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            // Path segments, slash-prefixed
            ("{/list}", "/red,green,blue"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
            // Path-style parameters, semicolon-prefixed
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
            // Form-style query, ampersand-separated
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
            // Form-style query continuation
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ],
    );
}

/// RFC 6570 sections 3.2.1 to 3.2.9. `{.who,who}`, `{/who,who}` and `{/var:1,var}` name a
/// variable twice, which parsing rejects.
#[test]
fn rfc_6570_section_3_2_examples() {
    check(
        &rfc_values(),
        &[
            // 3.2.1 Variable expansion
            ("{count}", "one,two,three"),
            ("{count*}", "one,two,three"),
            ("{/count}", "/one,two,three"),
            ("{/count*}", "/one/two/three"),
            ("{;count}", ";count=one,two,three"),
            ("{;count*}", ";count=one;count=two;count=three"),
            ("{?count}", "?count=one,two,three"),
            ("{?count*}", "?count=one&count=two&count=three"),
            ("{&count*}", "&count=one&count=two&count=three"),
            // 3.2.2 Simple string expansion
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{half}", "50%25"),
            ("O{empty}X", "OX"),
            ("O{undef}X", "OX"),
            ("{x,y}", "1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("?{x,empty}", "?1024,"),
            ("?{x,undef}", "?1024"),
            ("?{undef,y}", "?768"),
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
            // 3.2.3 Reserved expansion
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+half}", "50%25"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
            ("O{+empty}X", "OX"),
            ("O{+undef}X", "OX"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("up{+path}{var}/here", "up/foo/barvalue/here"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+list*}", "red,green,blue"),
            ("{+keys}", "semi,;,dot,.,comma,,"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
            // 3.2.4 Fragment expansion
            ("{#var}", "#value"),
            ("{#hello}", "#Hello%20World!"),
            ("{#half}", "#50%25"),
            ("foo{#empty}", "foo#"),
            ("foo{#undef}", "foo"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list}", "#red,green,blue"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            ("{#keys*}", "#semi=;,dot=.,comma=,"),
            // 3.2.5 Label expansion with dot-prefix
            ("{.who}", ".fred"),
            ("{.half,who}", ".50%25.fred"),
            ("www{.dom*}", "www.example.com"),
            ("X{.var}", "X.value"),
            ("X{.empty}", "X."),
            ("X{.undef}", "X"),
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            ("X{.empty_keys}", "X"),
            ("X{.empty_keys*}", "X"),
            // 3.2.6 Path segment expansion
            ("{/who}", "/fred"),
            ("{/half,who}", "/50%25/fred"),
            ("{/who,dub}", "/fred/me%2Ftoo"),
            ("{/var}", "/value"),
            ("{/var,empty}", "/value/"),
            ("{/var,undef}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/list}", "/red,green,blue"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
            // 3.2.7 Path-style parameter expansion
            ("{;who}", ";who=fred"),
            ("{;half}", ";half=50%25"),
            ("{;empty}", ";empty"),
            ("{;v,empty,who}", ";v=6;empty;who=fred"),
            ("{;v,bar,who}", ";v=6;who=fred"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{;x,y,undef}", ";x=1024;y=768"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
            // 3.2.8 Form-style query expansion
            ("{?who}", "?who=fred"),
            ("{?half}", "?half=50%25"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?x,y,undef}", "?x=1024&y=768"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
            // 3.2.9 Form-style query continuation
            ("{&who}", "&who=fred"),
            ("{&half}", "&half=50%25"),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ],
    );
}

/// An empty list or map is undefined: skipped with its operator character, for every
/// operator, with and without `*`.
#[test]
fn empty_lists_and_maps_are_undefined() {
    let values = values(vec![
        ("x", "1024".into()),
        ("y", "768".into()),
        ("empty_list", TemplateValue::List(Vec::new())),
        ("empty_keys", TemplateValue::Map(Vec::new())),
    ]);
    for op in ["", "+", "#", ".", "/", ";", "?", "&"] {
        for name in ["empty_list", "empty_keys"] {
            for explode in ["", "*"] {
                let text = format!("O{{{op}{name}{explode}}}X");
                assert_eq!(template(&text).expand_values(&values), "OX", "{text}");
            }
        }
    }
    check(
        &values,
        &[
            ("{x,empty_list,y}", "1024,768"),
            ("{empty_keys*,y}", "768"),
            ("{/empty_list*,x}", "/1024"),
            ("{;x,empty_keys,y}", ";x=1024;y=768"),
            ("{?empty_list*,x}", "?x=1024"),
            ("{?empty_list}{&x}", "&x=1024"),
        ],
    );
}

/// A list holding empty strings is defined; its empty items follow the operator's rules for
/// an empty string when exploded, and a named unexploded list always writes `name=`.
#[test]
fn empty_strings_inside_lists_and_maps() {
    let values = values(vec![
        ("blank", [""].into()),
        ("gaps", ["a", "", "b"].into()),
        ("opts", [("a", "1"), ("b", "")].into()),
    ]);
    check(
        &values,
        &[
            ("O{blank}X", "OX"),
            ("O{blank*}X", "OX"),
            ("X{.blank}", "X."),
            ("X{/blank*}", "X/"),
            ("X{#blank}", "X#"),
            ("{;blank}", ";blank="),
            ("{;blank*}", ";blank"),
            ("{?blank}", "?blank="),
            ("{?blank*}", "?blank="),
            ("{&blank*}", "&blank="),
            ("{gaps}", "a,,b"),
            ("{/gaps*}", "/a//b"),
            ("{;gaps}", ";gaps=a,,b"),
            ("{;gaps*}", ";gaps=a;gaps;gaps=b"),
            ("{?gaps*}", "?gaps=a&gaps=&gaps=b"),
            ("{opts}", "a,1,b,"),
            ("{opts*}", "a=1,b="),
            ("X{.opts*}", "X.a=1.b="),
            ("{;opts}", ";opts=a,1,b,"),
            ("{;opts*}", ";a=1;b"),
            ("{?opts*}", "?a=1&b="),
            ("{&opts*}", "&a=1&b="),
        ],
    );
}

/// RFC 6570 section 2.4.1: prefixes do not apply to lists and maps; such a variable is
/// skipped, like an undefined one. (`{;keys:1*}` does not parse.)
#[test]
fn prefixes_skip_lists_and_maps() {
    check(
        &rfc_values(),
        &[
            ("O{list:3}X", "OX"),
            ("O{keys:1}X", "OX"),
            ("O{+keys:1}X", "OX"),
            ("O{/list:2}X", "OX"),
            ("{x,list:3,y}", "1024,768"),
            ("{?list:3,x}", "?x=1024"),
            ("{;keys:1,var:3}", ";var=val"),
        ],
    );
}

/// Cases of the uritemplate-test suite's extended tests: encoding of items, pair names and
/// pair values, and exploded maps after other query variables.
#[test]
fn encoding_and_explode_combinations() {
    let values = values(vec![
        ("id", "admin".into()),
        ("token", "12345".into()),
        ("pct", ["red%25", "%2Fgreen", "blue "].into()),
        ("keys", [("key1", "val1%2F"), ("key2", "val2%2F")].into()),
        ("intl", [("šö ä", "Ö×Ø")].into()),
        ("german", [("11", "elf"), ("12", "zwölf")].into()),
    ]);
    check(
        &values,
        &[
            ("{+pct}", "red%25,%2Fgreen,blue%20"),
            ("{#pct}", "#red%25,%2Fgreen,blue%20"),
            ("{pct}", "red%2525,%252Fgreen,blue%20"),
            ("{+keys}", "key1,val1%2F,key2,val2%2F"),
            ("{#keys}", "#key1,val1%2F,key2,val2%2F"),
            ("{keys}", "key1,val1%252F,key2,val2%252F"),
            ("{?intl*}", "?%C5%A1%C3%B6%20%C3%A4=%C3%96%C3%97%C3%98"),
            ("{?german*}", "?11=elf&12=zw%C3%B6lf"),
            ("{?id,token,keys*}", "?id=admin&token=12345&key1=val1%252F&key2=val2%252F"),
            ("{/id}{?token}{&keys*}", "/admin?token=12345&key1=val1%252F&key2=val2%252F"),
        ],
    );
}

#[test]
fn conversions() {
    let strings = |items: &[&str]| items.iter().map(|item| (*item).to_owned()).collect::<Vec<_>>();
    let pairs = vec![("a".to_owned(), "1".to_owned())];
    assert_eq!(TemplateValue::from("v"), TemplateValue::String("v".to_owned()));
    assert_eq!(TemplateValue::from("v".to_owned()), TemplateValue::String("v".to_owned()));
    assert_eq!(TemplateValue::from(strings(&["a", "b"])), TemplateValue::List(strings(&["a", "b"])));
    assert_eq!(TemplateValue::from(vec!["a", "b"]), TemplateValue::List(strings(&["a", "b"])));
    assert_eq!(TemplateValue::from(["a", "b"]), TemplateValue::List(strings(&["a", "b"])));
    assert_eq!(TemplateValue::from(pairs.clone()), TemplateValue::Map(pairs.clone()));
    assert_eq!(TemplateValue::from(vec![("a", "1")]), TemplateValue::Map(pairs.clone()));
    assert_eq!(TemplateValue::from([("a", "1")]), TemplateValue::Map(pairs.clone()));
    assert_eq!(TemplateValue::from(&[("a", "1")][..]), TemplateValue::Map(pairs));
}

/// `expand` is `expand_values` with string values.
#[test]
fn expand_is_expand_values_with_strings() {
    let t = template("x://{a}{/b*}{;c:2}{?d*}");
    let strings = BTreeMap::from([("a", "1 2"), ("b", "3/4"), ("c", "567"), ("d", "")])
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect::<BTreeMap<_, _>>();
    let values = strings.iter().map(|(name, value)| (name.clone(), value.as_str().into())).collect();
    assert_eq!(t.expand(&strings), "x://1%202/3%2F4;c=56?d=");
    assert_eq!(t.expand_values(&values), t.expand(&strings));
}
