//! What a server writes to its peer: a message, or an answer with a member it keeps as JSON
//! text (a `tools/list` page), which only a writer needs to know about.

use modelctx_protocol::jsonrpc::{Message, Notification, PreparedResponse};
use serde::{Serialize, Serializer};

/// One message on its way out of the server.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// Any message: a notification, a request to the client, an answer, an error.
    Message(Message),
    /// An answer with a prepared member.
    Prepared(PreparedResponse),
}

impl From<Message> for Outgoing {
    fn from(message: Message) -> Self {
        Self::Message(message)
    }
}

impl From<Notification> for Outgoing {
    fn from(notification: Notification) -> Self {
        Self::Message(Message::Notification(notification))
    }
}

impl Outgoing {
    /// One line of JSON.
    pub(crate) fn to_json(&self) -> String {
        match self {
            Self::Message(message) => message.to_json(),
            Self::Prepared(prepared) => prepared.to_json(),
        }
    }

    /// As the peer reads it: a prepared answer is a plain response.
    pub(crate) fn into_message(self) -> Message {
        match self {
            Self::Message(message) => message,
            Self::Prepared(prepared) => Message::Response(prepared.into_response()),
        }
    }
}

impl Serialize for Outgoing {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Message(message) => message.serialize(serializer),
            Self::Prepared(prepared) => prepared.serialize(serializer),
        }
    }
}
