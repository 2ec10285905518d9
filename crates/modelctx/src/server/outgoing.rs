//! What a server writes to its peer: a message, an answer whose result is still its typed
//! value (a `tools/call` result), or one with a member kept as JSON text (a `tools/list`
//! page), which only a writer needs to know about.

#[cfg(feature = "testing")]
use modelctx_protocol::jsonrpc::Response;
use modelctx_protocol::jsonrpc::{
    ErrorObject, ErrorResponse, JSONRPC_VERSION, Message, Notification, PreparedResponse, RequestId,
};

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
                let start = buffer.len();
                buffer.extend_from_slice(b"{\"jsonrpc\":\"");
                buffer.extend_from_slice(JSONRPC_VERSION.as_bytes());
                buffer.extend_from_slice(b"\",\"id\":");
                serde_json::to_writer(&mut *buffer, id).expect("an id serialises");
                buffer.extend_from_slice(b",\"result\":");
                match result.write_json(buffer) {
                    Ok(()) => {
                        buffer.push(b'}');
                        Ok(())
                    }
                    // What was written of it is taken back: the request is answered with why.
                    Err(error) => {
                        buffer.truncate(start);
                        tracing::error!(%id, %error, "a result could not be written as JSON");
                        let error = ErrorObject::internal(format!(
                            "the result could not be written as JSON: {error}"
                        ));
                        serde_json::to_writer(
                            buffer,
                            &Message::Error(ErrorResponse { id: Some(id.clone()), error }),
                        )
                    }
                }
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
            Self::Typed { id, result } => Message::Response(Response { id, result: result.to_object() }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use modelctx_protocol::jsonrpc::RequestId;
    use serde_json::{Value, json};

    use crate::server::Answer;

    /// The line `answer` is written as, after what the buffer already held.
    fn written(answer: Answer) -> Value {
        let mut line = b"held ".to_vec();
        answer.into_response(RequestId::Number(7)).write_json(&mut line);
        assert!(line.starts_with(b"held "), "what the buffer held is kept");
        serde_json::from_slice(&line[5..]).expect("one JSON message")
    }

    #[test]
    fn a_typed_result_is_written_as_the_response_to_its_request() {
        let result = BTreeMap::from([("n", 1)]);
        assert_eq!(written(Answer::typed(result)), json!({"jsonrpc": "2.0", "id": 7, "result": {"n": 1}}));
    }

    #[test]
    fn a_result_that_cannot_be_written_answers_its_request_with_why() {
        // JSON object keys are strings: a map keyed by pairs cannot be written.
        let result = BTreeMap::from([((1, 2), 3)]);
        let message = written(Answer::typed(result));
        assert_eq!(message["id"], 7);
        assert_eq!(message["error"]["code"], -32603);
        let why = message["error"]["message"].as_str().unwrap();
        assert!(why.contains("the result could not be written as JSON: key must be a string"), "{why}");
        assert!(message.get("result").is_none());
    }
}
