//! Types whose wire shape is the same in 2025-11-25 and 2026-07-28, named as in `schema.ts`.
//!
//! Both revision modules ([`crate::v2025`], [`crate::v2026`]) re-export these, and together
//! with the revision-specific types they form the neutral model handlers work with.

mod capabilities;
mod common;
mod completion;
mod content;
mod elicitation;
mod long_text;
mod notifications;
mod prompts;
mod resources;
mod sampling;
mod tasks;
mod tools;

pub use capabilities::{
    ElicitationCapability, ListChangedCapability, ResourcesCapability, SamplingCapability,
};
pub use common::{
    Annotations, BaseMetadata, Icon, IconTheme, Icons, Implementation, LoggingLevel, Role, Root,
};
pub use completion::{
    Completion, CompletionArgument, CompletionContext, CompletionReference, PromptReference,
    PromptReferenceType, ResourceTemplateReference, ResourceTemplateReferenceType,
};
pub use content::{
    AudioContent, AudioType, BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceType,
    ImageContent, ImageType, ResourceContents, ResourceLink, ResourceLinkType, TextContent, TextOrBlob,
    TextResourceContents, TextType,
};
pub use elicitation::{
    ArrayType, BooleanSchema, BooleanType, ElicitAction, ElicitValue, EnumOption, EnumSchema,
    LegacyTitledEnumSchema, MultiSelectEnumSchema, NumberSchema, NumberType, ObjectType,
    PrimitiveSchemaDefinition, RequestedSchema, SingleSelectEnumSchema, StringFormat, StringSchema,
    StringType, TitledMultiSelectEnumSchema, TitledMultiSelectItems, TitledSingleSelectEnumSchema,
    UntitledMultiSelectEnumSchema, UntitledMultiSelectItems, UntitledSingleSelectEnumSchema,
};
pub use long_text::write_json_string;
pub use notifications::{
    LoggingMessageNotificationParams, NotificationParams, ProgressNotificationParams,
    ResourceUpdatedNotificationParams,
};
pub use prompts::{Prompt, PromptArgument, PromptMessage};
pub use resources::{Resource, ResourceTemplate};
pub use sampling::{
    IncludeContext, ModelCandidate, ModelHint, ModelPreferences, SamplingContent, SamplingMessage,
    SamplingMessageContentBlock, ToolChoice, ToolChoiceMode, ToolResultContent, ToolResultType,
    ToolUseContent, ToolUseType, check_conversation,
};
pub use tasks::TaskStatus;
pub(crate) use tasks::required_nullable;
pub use tools::ToolAnnotations;
