//! Content blocks (text, image, audio, resource links, embedded resources) and resource
//! contents.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::common::Annotations;
use super::resources::Resource;
use crate::Meta;
use crate::macros::{literal, tagged_union};

literal!(
    /// The `"text"` tag of [`TextContent`].
    pub TextType = "text"
);
literal!(
    /// The `"image"` tag of [`ImageContent`].
    pub ImageType = "image"
);
literal!(
    /// The `"audio"` tag of [`AudioContent`].
    pub AudioType = "audio"
);
literal!(
    /// The `"resource_link"` tag of [`ResourceLink`].
    pub ResourceLinkType = "resource_link"
);
literal!(
    /// The `"resource"` tag of [`EmbeddedResource`].
    pub EmbeddedResourceType = "resource"
);

/// Text for the model or user (`TextContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// Always `"text"`.
    #[serde(rename = "type")]
    pub kind: TextType,
    /// The text.
    #[serde(serialize_with = "super::long_text::serialize")]
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// Plain text with no annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self { kind: TextType, text: text.into(), annotations: None, meta: None }
    }
}

/// A base64-encoded image (`ImageContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Always `"image"`.
    #[serde(rename = "type")]
    pub kind: ImageType,
    /// Base64 image data.
    pub data: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Base64-encoded audio (`AudioContent`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Always `"audio"`.
    #[serde(rename = "type")]
    pub kind: AudioType,
    /// Base64 audio data.
    pub data: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A link to a resource the client may read (`ResourceLink`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// Always `"resource_link"`.
    #[serde(rename = "type")]
    pub kind: ResourceLinkType,
    /// The linked resource's description.
    #[serde(flatten)]
    pub resource: Resource,
}

/// The fields every resource contents object has (`ResourceContents`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The resource URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Text contents of a resource (`TextResourceContents`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    #[serde(serialize_with = "super::long_text::serialize")]
    pub text: String,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Binary contents of a resource, base64-encoded (`BlobResourceContents`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource URI.
    pub uri: String,
    /// Its MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64 data.
    pub blob: String,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Either text or binary resource contents, told apart by which of `text`/`blob` is present.
#[derive(Clone, Debug, PartialEq)]
pub enum TextOrBlob {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents.
    Blob(BlobResourceContents),
}

impl TextOrBlob {
    /// The resource URI.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(t) => &t.uri,
            Self::Blob(b) => &b.uri,
        }
    }
}

impl Serialize for TextOrBlob {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(t) => t.serialize(serializer),
            Self::Blob(b) => b.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for TextOrBlob {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        if value.get("text").is_some() {
            TextResourceContents::deserialize(value).map(Self::Text).map_err(D::Error::custom)
        } else if value.get("blob").is_some() {
            BlobResourceContents::deserialize(value).map(Self::Blob).map_err(D::Error::custom)
        } else {
            Err(D::Error::custom("resource contents need a \"text\" or a \"blob\" member"))
        }
    }
}

/// A resource's contents embedded in a message (`EmbeddedResource`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// Always `"resource"`.
    #[serde(rename = "type")]
    pub kind: EmbeddedResourceType,
    /// The contents.
    pub resource: TextOrBlob,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Extra metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

tagged_union! {
    /// Content in prompts and tool results (`ContentBlock`).
    pub enum ContentBlock by "type" {
        /// Text.
        "text" => Text(TextContent),
        /// An image.
        "image" => Image(ImageContent),
        /// Audio.
        "audio" => Audio(AudioContent),
        /// A link to a resource.
        "resource_link" => ResourceLink(ResourceLink),
        /// An embedded resource.
        "resource" => Resource(EmbeddedResource),
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }
}
