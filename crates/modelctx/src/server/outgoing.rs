//! What a server writes to its peer: a message, an answer whose result is still its typed
//! value (a `tools/call` result), or one with a member kept as JSON text (a `tools/list`
//! page), which only a writer needs to know about.

#[cfg(feature = "testing")]
use modelctx_protocol::jsonrpc::Response;
use modelctx_protocol::jsonrpc::{JSONRPC_VERSION, Message, Notification, PreparedResponse, RequestId};

use super::answer::WriteJson;

/// One message on its way out of the server.
#[derive(Debug)]
pub(crate) enum Outgoing {
    /// Any message: a notification, a request to the client, an answer, an error.
    Message(Message),
    /// An answer with a prepared member.
    Prepared(PreparedResponse),
    /// An answer whose result is a typed value, serialised as it is written.
    Typed {
        /// The id of the request being answered.
        id: RequestId,
        /// The result.
        result: Box<dyn WriteJson>,
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

/// Room for what a response adds around a serialised member: `jsonrpc`, the id, the members'
/// names, and a transport's framing.
const ENVELOPE_ROOM: usize = 128;

impl Outgoing {
    /// One line of JSON.
    #[cfg(feature = "http-server")]
    pub(crate) fn to_json(&self) -> String {
        let mut json = Vec::new();
        self.write_json(&mut json);
        String::from_utf8(json).expect("JSON is UTF-8")
    }

    /// Appends its JSON to `buffer`: a typed result serialised straight into it, and room made
    /// first for a member already serialised (a `tools/list` page), so that it is copied once,
    /// not grown into.
    pub(crate) fn write_json(&self, buffer: &mut Vec<u8>) {
        let written = match self {
            Self::Message(message) => serde_json::to_writer(buffer, message),
            Self::Prepared(prepared) => {
                buffer.reserve(prepared.result.value.get().len() + ENVELOPE_ROOM);
                serde_json::to_writer(buffer, prepared)
            }
            Self::Typed { id, result } => {
                buffer.extend_from_slice(b"{\"jsonrpc\":\"");
                buffer.extend_from_slice(JSONRPC_VERSION.as_bytes());
                buffer.extend_from_slice(b"\",\"id\":");
                serde_json::to_writer(&mut *buffer, id).expect("an id serialises");
                buffer.extend_from_slice(b",\"result\":");
                result.write_json(buffer);
                buffer.push(b'}');
                Ok(())
            }
        };
        written.expect("an outgoing message always serialises");
    }

    /// Its JSON between `before` and `after` (an SSE event's framing, say), in one buffer.
    #[cfg(feature = "http-server")]
    pub(crate) fn framed_json(&self, before: &str, after: &str) -> Vec<u8> {
        // Room for a small answer at once; a large one grows into more.
        let mut buffer = Vec::with_capacity(4 * ENVELOPE_ROOM);
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
            Self::Typed { id, result } => {
                let mut json = Vec::new();
                result.write_json(&mut json);
                Message::Response(Response {
                    id,
                    result: serde_json::from_slice(&json).expect("results serialise to objects"),
                })
            }
        }
    }
}
