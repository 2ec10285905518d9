//! Typed JSON-RPC wrappers: a request, notification or result whose params and result types
//! follow from a method marker type, as the schema's `CallToolRequest` or
//! `CallToolResultResponse` do.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::error::ErrorObject;
use super::id::RequestId;
use super::message::JSONRPC_VERSION;

/// A method's wire name.
pub trait MethodName {
    /// The `method` string, for example `"tools/call"`.
    const NAME: &'static str;
}

/// A request method: its params and result types.
pub trait RequestMethod: MethodName {
    /// The `params` member; `Option<_>` where the schema makes it optional.
    type Params: Params;
    /// The `result` member of a successful response.
    type Result: Serialize + DeserializeOwned;
}

/// A notification method: its params type.
pub trait NotificationMethod: MethodName {
    /// The `params` member; `Option<_>` where the schema makes it optional.
    type Params: Params;
}

/// A `params` member type. `Option<T>` is absent when `None`; every other params type is
/// always present.
pub trait Params: Serialize + DeserializeOwned {
    /// Whether the member is left out of the message.
    fn is_absent(&self) -> bool {
        false
    }
}

impl<T: Params> Params for Option<T> {
    fn is_absent(&self) -> bool {
        self.is_none()
    }
}

/// The `"jsonrpc": "2.0"` member: serialises as `"2.0"` and accepts nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct JsonRpcVersion;

impl Serialize for JsonRpcVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(JSONRPC_VERSION)
    }
}

impl<'de> Deserialize<'de> for JsonRpcVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        if text == JSONRPC_VERSION {
            Ok(Self)
        } else {
            Err(de::Error::custom(format!("\"jsonrpc\" must be \"2.0\", got {text:?}")))
        }
    }
}

/// The `method` member of a typed message: serialises as `M::NAME` and accepts nothing else.
pub struct MethodTag<M>(PhantomData<fn() -> M>);

impl<M> MethodTag<M> {
    /// The tag for `M`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<M> Default for MethodTag<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M> Clone for MethodTag<M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for MethodTag<M> {}

impl<M> PartialEq for MethodTag<M> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<M: MethodName> fmt::Debug for MethodTag<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", M::NAME)
    }
}

impl<M: MethodName> Serialize for MethodTag<M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(M::NAME)
    }
}

impl<'de, M: MethodName> Deserialize<'de> for MethodTag<M> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        if text == M::NAME {
            Ok(Self::new())
        } else {
            Err(de::Error::custom(format!("expected method {:?}, got {text:?}", M::NAME)))
        }
    }
}

/// A typed JSON-RPC request (`JSONRPCRequest` narrowed to one method).
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct JsonRpcRequest<M: RequestMethod> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The request id.
    pub id: RequestId,
    /// Always `M::NAME`.
    pub method: MethodTag<M>,
    /// The params.
    #[serde(skip_serializing_if = "Params::is_absent")]
    pub params: M::Params,
}

impl<M: RequestMethod> JsonRpcRequest<M> {
    /// A request with the given id and params.
    pub fn new(id: impl Into<RequestId>, params: M::Params) -> Self {
        Self { jsonrpc: JsonRpcVersion, id: id.into(), method: MethodTag::new(), params }
    }
}

impl<M: RequestMethod> fmt::Debug for JsonRpcRequest<M>
where
    M::Params: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonRpcRequest")
            .field("id", &self.id)
            .field("method", &M::NAME)
            .field("params", &self.params)
            .finish()
    }
}

impl<M: RequestMethod> Clone for JsonRpcRequest<M>
where
    M::Params: Clone,
{
    fn clone(&self) -> Self {
        Self {
            jsonrpc: JsonRpcVersion,
            id: self.id.clone(),
            method: MethodTag::new(),
            params: self.params.clone(),
        }
    }
}

impl<M: RequestMethod> PartialEq for JsonRpcRequest<M>
where
    M::Params: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.params == other.params
    }
}

/// A request without the JSON-RPC envelope: `{method, params}`, as the 2026-07-28
/// `InputRequests` carry server-to-client requests.
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct MethodCall<M: RequestMethod> {
    /// Always `M::NAME`.
    pub method: MethodTag<M>,
    /// The params.
    #[serde(skip_serializing_if = "Params::is_absent")]
    pub params: M::Params,
}

impl<M: RequestMethod> MethodCall<M> {
    /// A call with the given params.
    pub fn new(params: M::Params) -> Self {
        Self { method: MethodTag::new(), params }
    }
}

impl<M: RequestMethod> fmt::Debug for MethodCall<M>
where
    M::Params: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MethodCall").field("method", &M::NAME).field("params", &self.params).finish()
    }
}

impl<M: RequestMethod> Clone for MethodCall<M>
where
    M::Params: Clone,
{
    fn clone(&self) -> Self {
        Self::new(self.params.clone())
    }
}

impl<M: RequestMethod> PartialEq for MethodCall<M>
where
    M::Params: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params
    }
}

/// A typed JSON-RPC notification (`JSONRPCNotification` narrowed to one method).
#[derive(Serialize, Deserialize)]
#[serde(bound = "")]
pub struct JsonRpcNotification<N: NotificationMethod> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// Always `N::NAME`.
    pub method: MethodTag<N>,
    /// The params.
    #[serde(skip_serializing_if = "Params::is_absent")]
    pub params: N::Params,
}

impl<N: NotificationMethod> JsonRpcNotification<N> {
    /// A notification with the given params.
    pub fn new(params: N::Params) -> Self {
        Self { jsonrpc: JsonRpcVersion, method: MethodTag::new(), params }
    }
}

impl<N: NotificationMethod> fmt::Debug for JsonRpcNotification<N>
where
    N::Params: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonRpcNotification").field("method", &N::NAME).field("params", &self.params).finish()
    }
}

impl<N: NotificationMethod> Clone for JsonRpcNotification<N>
where
    N::Params: Clone,
{
    fn clone(&self) -> Self {
        Self::new(self.params.clone())
    }
}

impl<N: NotificationMethod> PartialEq for JsonRpcNotification<N>
where
    N::Params: PartialEq,
{
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params
    }
}

/// A successful response with a typed result (`JSONRPCResultResponse`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcResultResponse<R> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

impl<R> JsonRpcResultResponse<R> {
    /// A response to `id` carrying `result`.
    pub fn new(id: impl Into<RequestId>, result: R) -> Self {
        Self { jsonrpc: JsonRpcVersion, id: id.into(), result }
    }
}

/// An error response (`JSONRPCErrorResponse`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JsonRpcErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The id of the request answered, when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// What went wrong.
    pub error: ErrorObject,
}

impl JsonRpcErrorResponse {
    /// An error response to `id`.
    pub fn new(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self { jsonrpc: JsonRpcVersion, id, error }
    }
}

/// A request of any method whose params have a known shape, as the schema's
/// `PaginatedRequest` describes every list request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct AnyMethodRequest<P: Params> {
    /// Always `"2.0"`.
    pub jsonrpc: JsonRpcVersion,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params; absent from the message when `P` is an `Option` that is `None`.
    #[serde(skip_serializing_if = "Params::is_absent")]
    pub params: P,
}

/// A method name with its params and no envelope: the schema's base `Request` and
/// `Notification` shapes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodAndParams {
    /// The method name.
    pub method: String,
    /// The params object, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<crate::JsonObject>,
}
