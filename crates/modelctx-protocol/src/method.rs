//! [`Method`]: the method of a request or notification as a type, one variant per method of
//! either revision and its extensions, each spelled by its marker type's
//! [`MethodName::NAME`] (the markers are the only place a method's wire name is written).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::jsonrpc::MethodName;
use crate::{skills, tasks, v2025, v2026};

/// Declares [`Method`] from `Variant = marker` pairs.
macro_rules! methods {
    ($( $(#[$meta:meta])* $variant:ident = $marker:ty ),+ $(,)?) => {
        /// The method of a request or notification. Every method of 2025-11-25, 2026-07-28 and
        /// the extensions this crate knows is a variant; any other name is [`Method::Other`],
        /// kept as written. Both revisions' methods of one name share a variant: what differs
        /// between eras is the shape of params and results, which the era of the request
        /// decides.
        ///
        /// ```
        /// use modelctx_protocol::Method;
        ///
        /// assert_eq!(Method::from("tools/call"), Method::CallTool);
        /// assert_eq!(Method::CallTool.as_str(), "tools/call");
        /// assert_eq!(Method::from("acme/frobnicate").as_str(), "acme/frobnicate");
        /// ```
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Method {
            $( $(#[$meta])* $variant, )+
            /// A method this crate does not know (an extension's), as the message names it.
            Other(Box<str>),
        }

        impl Method {
            /// Every known method, for tests.
            #[cfg(test)]
            const KNOWN: &'static [Method] = &[$( Self::$variant ),+];

            /// The method named `name` on the wire.
            pub fn from_wire(name: &str) -> Self {
                Self::known(name).unwrap_or_else(|| Self::Other(name.into()))
            }

            /// The known method named `name`, if any.
            fn known(name: &str) -> Option<Self> {
                Some(match name {
                    $( <$marker as MethodName>::NAME => Self::$variant, )+
                    _ => return None,
                })
            }

            /// The name on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => <$marker as MethodName>::NAME, )+
                    Self::Other(name) => name,
                }
            }
        }
    };
}

methods! {
    /// `initialize` (2025-11-25 only).
    Initialize = v2025::Initialize,
    /// `ping` (2025-11-25 only; either side).
    Ping = v2025::Ping,
    /// `server/discover` (2026-07-28 only).
    Discover = v2026::Discover,
    /// `tools/list`.
    ListTools = v2026::ListTools,
    /// `tools/call`.
    CallTool = v2026::CallTool,
    /// `resources/list`.
    ListResources = v2026::ListResources,
    /// `resources/templates/list`.
    ListResourceTemplates = v2026::ListResourceTemplates,
    /// `resources/read`.
    ReadResource = v2026::ReadResource,
    /// `resources/subscribe` (2025-11-25 only).
    Subscribe = v2025::Subscribe,
    /// `resources/unsubscribe` (2025-11-25 only).
    Unsubscribe = v2025::Unsubscribe,
    /// `subscriptions/listen` (2026-07-28 only).
    SubscriptionsListen = v2026::SubscriptionsListen,
    /// `prompts/list`.
    ListPrompts = v2026::ListPrompts,
    /// `prompts/get`.
    GetPrompt = v2026::GetPrompt,
    /// `completion/complete`.
    Complete = v2026::Complete,
    /// `logging/setLevel` (2025-11-25 only).
    SetLevel = v2025::SetLevel,
    /// `sampling/createMessage`, server to client.
    CreateMessage = v2026::CreateMessage,
    /// `roots/list`, server to client.
    ListRoots = v2026::ListRoots,
    /// `elicitation/create`, server to client.
    Elicit = v2026::Elicit,
    /// `tasks/get` (2025-11-25 and the tasks extension).
    GetTask = tasks::GetTask,
    /// `tasks/result` (2025-11-25).
    GetTaskPayload = v2025::GetTaskPayload,
    /// `tasks/list` (2025-11-25).
    ListTasks = v2025::ListTasks,
    /// `tasks/cancel` (2025-11-25 and the tasks extension).
    CancelTask = tasks::CancelTask,
    /// `tasks/update` (the tasks extension).
    UpdateTask = tasks::UpdateTask,
    /// `skills/list` (the Skills extension).
    ListSkills = skills::ListSkills,
    /// `skills/get` (the Skills extension).
    GetSkill = skills::GetSkill,
    /// `resources/directory/read` (the Skills extension).
    ReadDirectory = skills::ReadDirectory,
    /// `notifications/cancelled`.
    Cancelled = v2026::Cancelled,
    /// `notifications/initialized` (2025-11-25 only).
    Initialized = v2025::Initialized,
    /// `notifications/progress`.
    Progress = v2026::Progress,
    /// `notifications/message`.
    LoggingMessage = v2026::LoggingMessage,
    /// `notifications/resources/updated`.
    ResourceUpdated = v2026::ResourceUpdated,
    /// `notifications/resources/list_changed`.
    ResourceListChanged = v2026::ResourceListChanged,
    /// `notifications/tools/list_changed`.
    ToolListChanged = v2026::ToolListChanged,
    /// `notifications/prompts/list_changed`.
    PromptListChanged = v2026::PromptListChanged,
    /// `notifications/roots/list_changed` (2025-11-25 only).
    RootsListChanged = v2025::RootsListChanged,
    /// `notifications/elicitation/complete` (2025-11-25 only).
    ElicitationComplete = v2025::ElicitationComplete,
    /// `notifications/tasks/status` (2025-11-25).
    LegacyTaskStatus = v2025::TaskStatusChanged,
    /// `notifications/tasks` (the tasks extension).
    TaskStatus = tasks::TaskStatusChanged,
    /// `notifications/subscriptions/acknowledged` (2026-07-28 only).
    SubscriptionsAcknowledged = v2026::SubscriptionsAcknowledged,
}

impl Method {
    /// The method marker `M` stands for.
    pub fn of<M: MethodName>() -> Self {
        Self::from_wire(M::NAME)
    }
}

impl From<&str> for Method {
    fn from(name: &str) -> Self {
        Self::from_wire(name)
    }
}

impl From<String> for Method {
    fn from(name: String) -> Self {
        Self::known(&name).unwrap_or_else(|| Self::Other(name.into_boxed_str()))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Method {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Method {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(match name {
            std::borrow::Cow::Borrowed(name) => Self::from_wire(name),
            std::borrow::Cow::Owned(name) => Self::from(name),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every known variant reads back from its own name, so no two share a name and no name
    /// falls through to `Other`.
    #[test]
    fn every_known_method_reads_back_from_its_name() {
        for method in Method::KNOWN {
            assert_eq!(&Method::from_wire(method.as_str()), method);
            assert_eq!(&Method::from(method.as_str().to_owned()), method);
        }
        assert_eq!(Method::from("tasks/status"), Method::Other("tasks/status".into()));
    }

    #[test]
    fn a_method_is_its_name_in_json() {
        let method: Method = serde_json::from_str(r#""notifications/tasks""#).unwrap();
        assert_eq!(method, Method::TaskStatus);
        assert_eq!(serde_json::to_string(&Method::from("x/y")).unwrap(), r#""x/y""#);
        assert_eq!(Method::of::<v2026::CallTool>(), Method::CallTool);
    }
}
