//! String constants as types: a field that must hold exactly one string (`"type": "text"`)
//! and tagged unions that pick a variant by one key.

/// Declares a zero-sized type that serialises as one fixed string and refuses any other.
macro_rules! literal {
    ($(#[$meta:meta])* $vis:vis $name:ident = $value:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        $vis struct $name;

        impl $name {
            /// The string this type stands for.
            pub const VALUE: &'static str = $value;
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                if text == $value {
                    Ok(Self)
                } else {
                    Err(<D::Error as ::serde::de::Error>::custom(format!(
                        "expected {:?}, got {:?}", $value, text
                    )))
                }
            }
        }
    };
}

/// Declares an enum whose variant is chosen by the string value of one key (`"type"`,
/// `"method"`, `"resultType"`), with a precise error naming the key and the known values.
/// `by "mode" or "form"` reads a missing key as `"form"`.
/// Each variant's type carries the key itself, so serialisation simply delegates.
macro_rules! tagged_union {
    (@missing $key:literal) => {
        return Err(D::Error::custom(concat!("missing string member \"", $key, "\"")))
    };
    (@missing $key:literal $default:literal) => {
        $default
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident by $key:literal $(or $default:literal)? {
            $( $(#[$vmeta:meta])* $tag:literal => $variant:ident($ty:ty) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(inner) => inner.serialize(serializer), )+
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use ::serde::de::Error as _;
                let value = ::serde_json::Value::deserialize(deserializer)?;
                let tag = match value.get($key) {
                    Some(tag) => tag
                        .as_str()
                        .ok_or_else(|| D::Error::custom(concat!("\"", $key, "\" must be a string")))?,
                    None => $crate::macros::tagged_union!(@missing $key $($default)?),
                };
                match tag {
                    $( $tag => <$ty as ::serde::Deserialize>::deserialize(value)
                        .map(Self::$variant)
                        .map_err(D::Error::custom), )+
                    other => Err(D::Error::custom(format!(
                        concat!("unknown \"", $key, "\" {:?}; expected one of: ", $($tag, " "),+),
                        other
                    ))),
                }
            }
        }
    };
}

/// Declares a string enum with known values and an `Other(String)` catch-all, for values the
/// spec leaves open (`resultType`, `stopReason`).
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $value:literal => $variant:ident ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this crate does not know.
            Other(String),
        }

        impl $name {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $value, )+
                    Self::Other(other) => other,
                }
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                match text {
                    $( $value => Self::$variant, )+
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                Ok(Self::from(&*text))
            }
        }
    };
}

/// Declares request method marker types: `Name = "wire/name", params P, result R;`.
macro_rules! request_methods {
    ($( $(#[$meta:meta])* $name:ident = $wire:literal, params $params:ty, result $result:ty; )+) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::jsonrpc::MethodName for $name {
            const NAME: &'static str = $wire;
        }

        impl $crate::jsonrpc::RequestMethod for $name {
            type Params = $params;
            type Result = $result;
        }
    )+};
}

/// Declares notification method marker types: `Name = "wire/name", params P;`.
macro_rules! notification_methods {
    ($( $(#[$meta:meta])* $name:ident = $wire:literal, params $params:ty; )+) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::jsonrpc::MethodName for $name {
            const NAME: &'static str = $wire;
        }

        impl $crate::jsonrpc::NotificationMethod for $name {
            type Params = $params;
        }
    )+};
}

/// Declares method marker types with a wire name only, for methods whose params and results
/// this crate leaves as JSON objects: `Name = "wire/name";`.
macro_rules! method_names {
    ($( $(#[$meta:meta])* $name:ident = $wire:literal; )+) => {$(
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $crate::jsonrpc::MethodName for $name {
            const NAME: &'static str = $wire;
        }
    )+};
}

/// Marks types as always-present `params` members.
macro_rules! params_types {
    ($($ty:ty),+ $(,)?) => {$( impl $crate::jsonrpc::Params for $ty {} )+};
}

/// Declares paginated list results: `Name { field: Item = "wireName" }` each, holding one page
/// of items, `nextCursor` and `_meta` of the given type, plus the `extra` fields (the same for
/// every result of the invocation; `{}` for none).
macro_rules! list_result {
    (
        meta $meta_ty:ty, extra $extra:tt;
        $( $(#[$attr:meta])* $name:ident { $field:ident: $item:ty = $wire:literal } )+
    ) => {$(
        $crate::macros::list_result!(@one $meta_ty, $extra, $(#[$attr])* $name, $field, $item, $wire);
    )+};
    (
        @one $meta_ty:ty, { $($extra:tt)* },
        $(#[$attr:meta])* $name:ident, $field:ident, $item:ty, $wire:literal
    ) => {
        $(#[$attr])*
        #[derive(Clone, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// This page.
            #[serde(rename = $wire)]
            pub $field: Vec<$item>,
            /// Where the next page starts; absent on the last page (an empty string is a cursor).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub next_cursor: Option<String>,
            $($extra)*
            /// Result metadata.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<$meta_ty>,
        }
    };
}

/// Declares an enum whose variant is told apart by the members the JSON has — for the
/// schema's unions that carry no tag. Each arm's predicate (see [`sniff`]) is tried in order;
/// the last variant is taken when none matches. Variants serialise as their own shape.
macro_rules! sniffed_union {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident $(<$g:ident>)? {
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) if $pred:expr, )+
            _ => $(#[$fmeta:meta])* $fallback:ident($fty:ty) $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        $vis enum $name $(<$g>)? {
            $( $(#[$vmeta])* $variant($ty), )+
            $(#[$fmeta])* $fallback($fty),
        }

        impl$(<$g: ::serde::Serialize>)? ::serde::Serialize for $name $(<$g>)? {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(inner) => inner.serialize(serializer), )+
                    Self::$fallback(inner) => inner.serialize(serializer),
                }
            }
        }

        impl<'de $(, $g: ::serde::de::DeserializeOwned)?> ::serde::Deserialize<'de> for $name $(<$g>)? {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                use ::serde::de::Error as _;
                let value = ::serde_json::Value::deserialize(deserializer)?;
                $(
                    if ($pred)(&value) {
                        return <$ty as ::serde::Deserialize>::deserialize(value)
                            .map(Self::$variant)
                            .map_err(D::Error::custom);
                    }
                )+
                <$fty as ::serde::Deserialize>::deserialize(value).map(Self::$fallback).map_err(D::Error::custom)
            }
        }
    };
}

/// Predicates for [`sniffed_union!`] arms.
pub(crate) mod sniff {
    use serde_json::Value;

    /// The object has member `key`.
    pub(crate) fn has(key: &'static str) -> impl Fn(&Value) -> bool {
        move |value| value.get(key).is_some()
    }

    /// The object's member `key` is the string `expected`.
    pub(crate) fn string_is(key: &'static str, expected: &'static str) -> impl Fn(&Value) -> bool {
        move |value| value.get(key).and_then(Value::as_str) == Some(expected)
    }

    /// The object's member `outer` is an object with member `inner`.
    pub(crate) fn nested(outer: &'static str, inner: &'static str) -> impl Fn(&Value) -> bool {
        move |value| value.get(outer).and_then(|o| o.get(inner)).is_some()
    }

    /// The object has no member but `_meta`.
    pub(crate) fn only_meta(value: &Value) -> bool {
        value.as_object().is_some_and(|members| members.keys().all(|key| key == "_meta"))
    }
}

pub(crate) use {
    list_result, literal, method_names, notification_methods, open_enum, params_types, request_methods,
    sniffed_union, tagged_union,
};
