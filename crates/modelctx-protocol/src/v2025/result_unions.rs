//! The result unions of each side (`ServerResult`, `ClientResult`). Results carry no tag, so
//! the member only one shape has tells them apart; prefer the method's own result type
//! (`<M as RequestMethod>::Result`) when the request is known.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::client_features::{CreateMessageResult, ElicitResult, ListRootsResult};
use super::results::{
    CallToolResult, CompleteResult, EmptyResult, GetPromptResult, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, ReadResourceResult,
    Result as AnyResult,
};
use super::tasks::{CreateTaskResult, GetTaskResult, ListTasksResult};

/// Declares an untagged result union that serialises each variant as its own shape.
macro_rules! result_union {
    ($(#[$meta:meta])* $name:ident { $( $(#[$vmeta:meta])* $variant:ident($ty:ty), )+ }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(inner) => inner.serialize(serializer), )+
                }
            }
        }
    };
}

result_union! {
    /// Any result a 2025-11-25 server sends (`ServerResult`).
    #[allow(clippy::large_enum_variant, reason = "a parsed message, matched once and dropped")]
    ServerResult {
        /// `initialize`.
        Initialize(InitializeResult),
        /// `completion/complete`.
        Complete(CompleteResult),
        /// `prompts/get`.
        GetPrompt(GetPromptResult),
        /// `prompts/list`.
        ListPrompts(ListPromptsResult),
        /// `resources/templates/list`.
        ListResourceTemplates(ListResourceTemplatesResult),
        /// `resources/list`.
        ListResources(ListResourcesResult),
        /// `resources/read`.
        ReadResource(ReadResourceResult),
        /// `tools/call` (also a `tasks/result` payload of a tool call).
        CallTool(CallToolResult),
        /// `tools/list`.
        ListTools(ListToolsResult),
        /// A task-augmented request became a task. (Not in the schema's union, but what
        /// a task-augmented `tools/call` answers.)
        CreateTask(CreateTaskResult),
        /// `tasks/get` or `tasks/cancel` (`GetTaskResult`, `CancelTaskResult`).
        GetTask(GetTaskResult),
        /// `tasks/list`.
        ListTasks(ListTasksResult),
        /// `ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`:
        /// nothing but `_meta`.
        Empty(EmptyResult),
        /// Any other shape, such as a `tasks/result` payload (`GetTaskPayloadResult`).
        Other(AnyResult),
    }
}

result_union! {
    /// Any result a 2025-11-25 client sends (`ClientResult`).
    #[allow(clippy::large_enum_variant, reason = "a parsed message, matched once and dropped")]
    ClientResult {
        /// `sampling/createMessage`.
        CreateMessage(CreateMessageResult),
        /// `roots/list`.
        ListRoots(ListRootsResult),
        /// `elicitation/create`.
        Elicit(ElicitResult),
        /// A task-augmented request became a task. (Not in the schema's union, but what
        /// a task-augmented `sampling/createMessage` or `elicitation/create` answers.)
        CreateTask(CreateTaskResult),
        /// `tasks/get` or `tasks/cancel` (`GetTaskResult`, `CancelTaskResult`).
        GetTask(GetTaskResult),
        /// `tasks/list`.
        ListTasks(ListTasksResult),
        /// `ping`: nothing but `_meta`.
        Empty(EmptyResult),
        /// Any other shape, such as a `tasks/result` payload (`GetTaskPayloadResult`).
        Other(AnyResult),
    }
}

/// Whether a result object has no member but `_meta`.
fn is_empty(value: &Value) -> bool {
    value.as_object().is_some_and(|members| members.keys().all(|key| key == "_meta"))
}

impl<'de> Deserialize<'de> for ServerResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        let has = |key: &str| value.get(key).is_some();
        let parsed = if has("task") {
            CreateTaskResult::deserialize(value).map(Self::CreateTask)
        } else if has("taskId") {
            GetTaskResult::deserialize(value).map(Self::GetTask)
        } else if has("tasks") {
            ListTasksResult::deserialize(value).map(Self::ListTasks)
        } else if has("protocolVersion") {
            InitializeResult::deserialize(value).map(Self::Initialize)
        } else if has("completion") {
            CompleteResult::deserialize(value).map(Self::Complete)
        } else if has("messages") {
            GetPromptResult::deserialize(value).map(Self::GetPrompt)
        } else if has("prompts") {
            ListPromptsResult::deserialize(value).map(Self::ListPrompts)
        } else if has("resourceTemplates") {
            ListResourceTemplatesResult::deserialize(value).map(Self::ListResourceTemplates)
        } else if has("resources") {
            ListResourcesResult::deserialize(value).map(Self::ListResources)
        } else if has("contents") {
            ReadResourceResult::deserialize(value).map(Self::ReadResource)
        } else if has("content") {
            CallToolResult::deserialize(value).map(Self::CallTool)
        } else if has("tools") {
            ListToolsResult::deserialize(value).map(Self::ListTools)
        } else if is_empty(&value) {
            EmptyResult::deserialize(value).map(Self::Empty)
        } else {
            AnyResult::deserialize(value).map(Self::Other)
        };
        parsed.map_err(D::Error::custom)
    }
}

impl<'de> Deserialize<'de> for ClientResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(deserializer)?;
        let has = |key: &str| value.get(key).is_some();
        let parsed = if has("task") {
            CreateTaskResult::deserialize(value).map(Self::CreateTask)
        } else if has("taskId") {
            GetTaskResult::deserialize(value).map(Self::GetTask)
        } else if has("tasks") {
            ListTasksResult::deserialize(value).map(Self::ListTasks)
        } else if has("action") {
            ElicitResult::deserialize(value).map(Self::Elicit)
        } else if has("roots") {
            ListRootsResult::deserialize(value).map(Self::ListRoots)
        } else if has("model") {
            CreateMessageResult::deserialize(value).map(Self::CreateMessage)
        } else if is_empty(&value) {
            EmptyResult::deserialize(value).map(Self::Empty)
        } else {
            AnyResult::deserialize(value).map(Self::Other)
        };
        parsed.map_err(D::Error::custom)
    }
}
