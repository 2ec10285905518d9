//! The values a template expands (RFC 6570 section 2.3).

/// The value of one template variable: a string, a list or an associative array.
///
/// An empty list or map is undefined, like an absent variable: expansion skips it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TemplateValue {
    /// A string.
    String(String),
    /// A list of strings, expanded in order.
    List(Vec<String>),
    /// An associative array: `(name, value)` pairs, expanded in the order given.
    Map(Vec<(String, String)>),
}

impl TemplateValue {
    /// Whether the value is defined: RFC 6570 treats an empty list or map as undefined.
    pub(super) fn is_defined(&self) -> bool {
        match self {
            Self::String(_) => true,
            Self::List(items) => !items.is_empty(),
            Self::Map(pairs) => !pairs.is_empty(),
        }
    }
}

/// A string value.
impl From<&str> for TemplateValue {
    fn from(value: &str) -> Self {
        Self::String(value.to_owned())
    }
}

/// A string value.
impl From<String> for TemplateValue {
    fn from(value: String) -> Self {
        Self::String(value)
    }
}

/// A list value.
impl From<Vec<String>> for TemplateValue {
    fn from(items: Vec<String>) -> Self {
        Self::List(items)
    }
}

/// A list value.
impl From<Vec<&str>> for TemplateValue {
    fn from(items: Vec<&str>) -> Self {
        Self::List(items.into_iter().map(str::to_owned).collect())
    }
}

/// A list value.
impl<const N: usize> From<[&str; N]> for TemplateValue {
    fn from(items: [&str; N]) -> Self {
        Self::List(items.map(str::to_owned).into())
    }
}

/// An associative array, in the order of the pairs.
impl From<Vec<(String, String)>> for TemplateValue {
    fn from(pairs: Vec<(String, String)>) -> Self {
        Self::Map(pairs)
    }
}

/// An associative array, in the order of the pairs.
impl From<Vec<(&str, &str)>> for TemplateValue {
    fn from(pairs: Vec<(&str, &str)>) -> Self {
        pairs.as_slice().into()
    }
}

/// An associative array, in the order of the pairs.
impl<const N: usize> From<[(&str, &str); N]> for TemplateValue {
    fn from(pairs: [(&str, &str); N]) -> Self {
        pairs.as_slice().into()
    }
}

/// An associative array, in the order of the pairs.
impl From<&[(&str, &str)]> for TemplateValue {
    fn from(pairs: &[(&str, &str)]) -> Self {
        Self::Map(pairs.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect())
    }
}
