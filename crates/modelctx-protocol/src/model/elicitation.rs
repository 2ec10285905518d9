//! Elicitation requests across revisions: 2025-11-25 URL mode needs an `elicitationId`
//! (for `notifications/elicitation/complete`); 2026-07-28 correlates through `requestState`.

use crate::types::RequestedSchema;
use crate::{v2025, v2026};

/// What a handler asks the user, in either era.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitRequest {
    /// Fill in a form.
    Form {
        /// What to tell the user.
        message: String,
        /// The form.
        requested_schema: RequestedSchema,
    },
    /// Visit a URL (for anything sensitive: credentials never travel through forms).
    Url {
        /// What to tell the user.
        message: String,
        /// Where to send them.
        url: String,
        /// The id a 2025-11-25 completion notification names; unused in 2026-07-28.
        elicitation_id: Option<String>,
    },
}

/// A 2025-11-25 URL-mode elicitation needs an `elicitationId`, and none was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingElicitationId;

impl std::fmt::Display for MissingElicitationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a 2025-11-25 URL-mode elicitation needs an elicitationId")
    }
}

impl std::error::Error for MissingElicitationId {}

impl From<ElicitRequest> for v2026::ElicitRequestParams {
    fn from(request: ElicitRequest) -> Self {
        match request {
            ElicitRequest::Form { message, requested_schema } => Self::Form(v2026::ElicitRequestFormParams {
                mode: Some(v2026::FormMode),
                message,
                requested_schema,
            }),
            ElicitRequest::Url { message, url, elicitation_id: _ } => {
                Self::Url(v2026::ElicitRequestURLParams { mode: v2026::UrlMode, message, url })
            }
        }
    }
}

impl TryFrom<ElicitRequest> for v2025::ElicitRequestParams {
    type Error = MissingElicitationId;

    fn try_from(request: ElicitRequest) -> Result<Self, Self::Error> {
        Ok(match request {
            ElicitRequest::Form { message, requested_schema } => Self::Form(v2025::ElicitRequestFormParams {
                meta: None,
                task: None,
                mode: Some(v2025::FormMode),
                message,
                requested_schema,
            }),
            ElicitRequest::Url { message, url, elicitation_id } => Self::Url(v2025::ElicitRequestURLParams {
                meta: None,
                task: None,
                mode: v2025::UrlMode,
                message,
                elicitation_id: elicitation_id.ok_or(MissingElicitationId)?,
                url,
            }),
        })
    }
}

impl From<v2026::ElicitRequestParams> for ElicitRequest {
    fn from(params: v2026::ElicitRequestParams) -> Self {
        match params {
            v2026::ElicitRequestParams::Form(v2026::ElicitRequestFormParams {
                mode: _,
                message,
                requested_schema,
            }) => Self::Form { message, requested_schema },
            v2026::ElicitRequestParams::Url(v2026::ElicitRequestURLParams { mode: _, message, url }) => {
                Self::Url { message, url, elicitation_id: None }
            }
        }
    }
}

impl From<v2025::ElicitRequestParams> for ElicitRequest {
    fn from(params: v2025::ElicitRequestParams) -> Self {
        match params {
            v2025::ElicitRequestParams::Form(v2025::ElicitRequestFormParams {
                meta: _,
                task: _,
                mode: _,
                message,
                requested_schema,
            }) => Self::Form { message, requested_schema },
            v2025::ElicitRequestParams::Url(v2025::ElicitRequestURLParams {
                meta: _,
                task: _,
                mode: _,
                message,
                elicitation_id,
                url,
            }) => Self::Url { message, url, elicitation_id: Some(elicitation_id) },
        }
    }
}
