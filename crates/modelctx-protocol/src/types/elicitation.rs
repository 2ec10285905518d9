//! The restricted JSON Schema subset of form-mode elicitation (`PrimitiveSchemaDefinition`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::macros::literal;

literal!(
    /// `"type": "string"`.
    pub StringType = "string"
);
literal!(
    /// `"type": "boolean"`.
    pub BooleanType = "boolean"
);
literal!(
    /// `"type": "array"`.
    pub ArrayType = "array"
);

/// `"number"` or `"integer"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// Any number.
    Number,
    /// Integers only.
    Integer,
}

/// Formats a string field may require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringFormat {
    /// An e-mail address.
    Email,
    /// A URI.
    Uri,
    /// A date.
    Date,
    /// A date and time.
    DateTime,
}

/// A text field (`StringSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Required format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A number field (`NumberSchema`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Lowest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// Highest allowed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
}

/// A checkbox (`BooleanSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// One titled choice: `{const, title}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumOption {
    /// The value sent back.
    #[serde(rename = "const")]
    pub value: String,
    /// The label shown.
    pub title: String,
}

/// Pick one of plain values (`UntitledSingleSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Pick one of labelled values (`TitledSingleSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "oneOf")]
    pub one_of: Vec<EnumOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Pick one, plain or labelled (`SingleSelectEnumSchema`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SingleSelectEnumSchema {
    /// Plain values.
    Untitled(UntitledSingleSelectEnumSchema),
    /// Labelled values.
    Titled(TitledSingleSelectEnumSchema),
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledMultiSelectItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a [`TitledMultiSelectEnumSchema`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitledMultiSelectItems {
    /// The choices.
    #[serde(rename = "anyOf")]
    pub any_of: Vec<EnumOption>,
}

/// Pick several plain values (`UntitledMultiSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: UntitledMultiSelectItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Pick several labelled values (`TitledMultiSelectEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledMultiSelectItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Pick several, plain or labelled (`MultiSelectEnumSchema`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MultiSelectEnumSchema {
    /// Plain values.
    Untitled(UntitledMultiSelectEnumSchema),
    /// Labelled values.
    Titled(TitledMultiSelectEnumSchema),
}

/// The deprecated `enum` + `enumNames` form (`LegacyTitledEnumSchema`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringType,
    /// Field label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Labels, parallel to `enum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Any choice field (`EnumSchema`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnumSchema {
    /// Pick one.
    Single(SingleSelectEnumSchema),
    /// Pick several.
    Multi(MultiSelectEnumSchema),
    /// The deprecated `enumNames` form.
    LegacyTitled(LegacyTitledEnumSchema),
}

/// One form field (`PrimitiveSchemaDefinition`).
#[derive(Clone, Debug, PartialEq)]
pub enum PrimitiveSchemaDefinition {
    /// Text.
    String(StringSchema),
    /// A number.
    Number(NumberSchema),
    /// A checkbox.
    Boolean(BooleanSchema),
    /// A choice.
    Enum(EnumSchema),
}

/// Serialises an enum by delegating to the variant's own shape.
macro_rules! delegate_serialize {
    ($name:ident { $($variant:ident),+ }) => {
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(inner) => inner.serialize(serializer), )+
                }
            }
        }
    };
}

delegate_serialize!(SingleSelectEnumSchema { Untitled, Titled });
delegate_serialize!(MultiSelectEnumSchema { Untitled, Titled });
delegate_serialize!(EnumSchema { Single, Multi, LegacyTitled });
delegate_serialize!(PrimitiveSchemaDefinition { String, Number, Boolean, Enum });

fn from_value<T: serde::de::DeserializeOwned, E: serde::de::Error>(value: Value) -> Result<T, E> {
    T::deserialize(value).map_err(E::custom)
}

impl SingleSelectEnumSchema {
    fn from_json<E: serde::de::Error>(value: Value) -> Result<Self, E> {
        if value.get("oneOf").is_some() {
            from_value(value).map(Self::Titled)
        } else {
            from_value(value).map(Self::Untitled)
        }
    }
}

impl MultiSelectEnumSchema {
    fn from_json<E: serde::de::Error>(value: Value) -> Result<Self, E> {
        if value.get("items").and_then(|items| items.get("anyOf")).is_some() {
            from_value(value).map(Self::Titled)
        } else {
            from_value(value).map(Self::Untitled)
        }
    }
}

impl EnumSchema {
    fn from_json<E: serde::de::Error>(value: Value) -> Result<Self, E> {
        match value.get("type").and_then(Value::as_str) {
            Some("array") => MultiSelectEnumSchema::from_json(value).map(Self::Multi),
            _ if value.get("enumNames").is_some() => from_value(value).map(Self::LegacyTitled),
            _ => SingleSelectEnumSchema::from_json(value).map(Self::Single),
        }
    }
}

impl PrimitiveSchemaDefinition {
    fn from_json<E: serde::de::Error>(value: Value) -> Result<Self, E> {
        let is_choice = value.get("enum").is_some() || value.get("oneOf").is_some();
        match value.get("type").and_then(Value::as_str) {
            Some("string") if is_choice => EnumSchema::from_json(value).map(Self::Enum),
            Some("string") => from_value(value).map(Self::String),
            Some("number" | "integer") => from_value(value).map(Self::Number),
            Some("boolean") => from_value(value).map(Self::Boolean),
            Some("array") => EnumSchema::from_json(value).map(Self::Enum),
            Some(other) => Err(E::custom(format!(
                "form fields are string, number, integer, boolean or array (multi-select), not {other:?}"
            ))),
            None => Err(E::custom("a form field needs a string \"type\"")),
        }
    }
}

/// Deserialises an enum through its `from_json` discriminator.
macro_rules! deserialize_via_json {
    ($($name:ident),+) => {$(
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                Self::from_json(Value::deserialize(deserializer)?)
            }
        }
    )+};
}

deserialize_via_json!(SingleSelectEnumSchema, MultiSelectEnumSchema, EnumSchema, PrimitiveSchemaDefinition);

literal!(
    /// `"type": "object"`.
    pub ObjectType = "object"
);

/// The flat object schema of a form-mode elicitation (`requestedSchema`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestedSchema {
    /// The JSON Schema dialect, when not the default 2020-12.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectType,
    /// The form fields by name.
    pub properties: std::collections::BTreeMap<String, PrimitiveSchemaDefinition>,
    /// Names of fields that must be filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

/// What the user did with an elicitation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form content follows).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// One submitted form value: a string, number, boolean or list of strings.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitValue {
    /// Text or a single choice.
    String(String),
    /// A number.
    Number(serde_json::Number),
    /// A checkbox.
    Boolean(bool),
    /// Several choices.
    Strings(Vec<String>),
}

impl Serialize for ElicitValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(s) => s.serialize(serializer),
            Self::Number(n) => n.serialize(serializer),
            Self::Boolean(b) => b.serialize(serializer),
            Self::Strings(list) => list.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(s) => Ok(Self::String(s)),
            Value::Number(n) => Ok(Self::Number(n)),
            Value::Bool(b) => Ok(Self::Boolean(b)),
            Value::Array(items) => from_value(Value::Array(items)).map(Self::Strings),
            _ => Err(serde::de::Error::custom(
                "a form value is a string, a number, a boolean or a list of strings",
            )),
        }
    }
}
