//! Typed values from the string maps of prompt arguments and template variables: a field of
//! type `u32` or `bool` is parsed from its string, a `String` taken as it is, an `Option`
//! present when the key is.

use std::collections::BTreeMap;
use std::str::FromStr;

use serde::de::value::{Error, MapDeserializer};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};

/// `T` from `values`, each value parsed into the type its field wants.
pub(crate) fn from_strings<T: DeserializeOwned>(values: &BTreeMap<String, String>) -> Result<T, Error> {
    let entries = values.iter().map(|(key, value)| (key.as_str(), Text(value)));
    T::deserialize(MapDeserializer::new(entries))
}

/// One string value, parsed on demand.
struct Text<'a>(&'a str);

impl<'de> IntoDeserializer<'de, Error> for Text<'_> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl Text<'_> {
    fn parse<T: FromStr>(&self, what: &str) -> Result<T, Error> {
        self.0.parse().map_err(|_| de::Error::custom(format!("{:?} is not {what}", self.0)))
    }
}

/// Parses the value for the numeric and boolean methods.
macro_rules! parsed {
    ($($method:ident => $visit:ident: $type:ty, $what:literal;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.$visit(self.parse::<$type>($what)?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Text<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    parsed! {
        deserialize_bool => visit_bool: bool, "true or false";
        deserialize_i8 => visit_i8: i8, "an integer";
        deserialize_i16 => visit_i16: i16, "an integer";
        deserialize_i32 => visit_i32: i32, "an integer";
        deserialize_i64 => visit_i64: i64, "an integer";
        deserialize_u8 => visit_u8: u8, "a non-negative integer";
        deserialize_u16 => visit_u16: u16, "a non-negative integer";
        deserialize_u32 => visit_u32: u32, "a non-negative integer";
        deserialize_u64 => visit_u64: u64, "a non-negative integer";
        deserialize_f32 => visit_f32: f32, "a number";
        deserialize_f64 => visit_f64: f64, "a number";
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Page {
        id: u32,
        name: String,
        draft: Option<bool>,
        score: Option<f64>,
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn fields_are_parsed_into_their_types() {
        let page: Page = from_strings(&map(&[("id", "7"), ("name", "007"), ("draft", "true")])).unwrap();
        assert_eq!(page, Page { id: 7, name: "007".into(), draft: Some(true), score: None });
    }

    #[test]
    fn a_value_that_does_not_parse_says_so() {
        let error = from_strings::<Page>(&map(&[("id", "seven"), ("name", "x")])).unwrap_err();
        assert_eq!(error.to_string(), "\"seven\" is not a non-negative integer");
        let missing = from_strings::<Page>(&map(&[("id", "1")])).unwrap_err();
        assert!(missing.to_string().contains("name"), "{missing}");
    }
}
