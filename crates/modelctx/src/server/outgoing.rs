//! What a server writes to its peer: a message, or an answer kept in whole or in part as JSON
//! text (a `tools/call` result, a `tools/list` page), which only a writer needs to know about.

#[cfg(feature = "testing")]
use modelctx_protocol::jsonrpc::Response;
use modelctx_protocol::jsonrpc::{JSONRPC_VERSION, Message, Notification, PreparedResponse, RequestId};
use serde::ser::SerializeMap as _;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// One message on its way out of the server.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// Any message: a notification, a request to the client, an answer, an error.
    Message(Message),
    /// An answer with a prepared member.
    Prepared(PreparedResponse),
    /// An answer whose whole result is JSON text.
    Serialized {
        /// The id of the request being answered.
        id: RequestId,
        /// The result, serialised.
        result: Box<RawValue>,
    },
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

/// Room for what a response adds around its serialised result: `jsonrpc`, the id, the
/// members' names, and a transport's framing.
const ENVELOPE_ROOM: usize = 128;

impl Outgoing {
    /// One line of JSON.
    #[cfg(feature = "http-server")]
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an outgoing message always serialises")
    }

    /// Appends its JSON to `buffer`, with room made first for what is already serialised in
    /// it (a result, a prepared member): a large answer is copied once, not grown into.
    pub(crate) fn write_json(&self, buffer: &mut Vec<u8>) {
        let serialised = match self {
            Self::Message(_) => 0,
            Self::Prepared(prepared) => prepared.result.value.get().len(),
            Self::Serialized { result, .. } => result.get().len(),
        };
        buffer.reserve(serialised + ENVELOPE_ROOM);
        serde_json::to_writer(buffer, self).expect("an outgoing message always serialises");
    }

    /// Its JSON between `before` and `after` (an SSE event's framing, say), in one buffer.
    #[cfg(feature = "http-server")]
    pub(crate) fn framed_json(&self, before: &str, after: &str) -> Vec<u8> {
        let mut buffer = Vec::new();
        buffer.extend_from_slice(before.as_bytes());
        self.write_json(&mut buffer);
        buffer.extend_from_slice(after.as_bytes());
        buffer
    }

    /// As the peer reads it: a prepared answer is a plain response.
    #[cfg(feature = "testing")]
    pub(crate) fn into_message(self) -> Message {
        match self {
            Self::Message(message) => message,
            Self::Prepared(prepared) => Message::Response(prepared.into_response()),
            Self::Serialized { id, result } => Message::Response(Response {
                id,
                result: serde_json::from_str(result.get()).expect("results serialise to objects"),
            }),
        }
    }
}

impl Serialize for Outgoing {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Message(message) => message.serialize(serializer),
            Self::Prepared(prepared) => prepared.serialize(serializer),
            Self::Serialized { id, result } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("jsonrpc", JSONRPC_VERSION)?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("result", result)?;
                map.end()
            }
        }
    }
}
