//! The bus between instances on Redis pub/sub: one channel per topic under the namespace.

use modelctx::store::{Bus, BusMessages, StoreFuture};

use crate::Redis;
use crate::connection::payloads_of;

/// The bus between the instances of a deployment, on Redis pub/sub (at most once, to the
/// instances subscribed when a message is published; subscriptions survive reconnects).
#[derive(Clone, Debug)]
pub struct RedisBus {
    redis: Redis,
}

impl RedisBus {
    pub(crate) fn new(redis: Redis) -> Self {
        Self { redis }
    }
}

impl Bus for RedisBus {
    fn publish<'a>(&'a self, topic: &'a str, message: String) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let channel = self.redis.key(&["bus", topic]);
            self.redis
                .run::<i64>("publish on the bus", redis::cmd("PUBLISH").arg(channel).arg(message))
                .await
                .map(drop)
        })
    }

    fn subscribe<'a>(&'a self, topic: &'a str) -> StoreFuture<'a, BusMessages> {
        Box::pin(async move {
            let channel = self.redis.key(&["bus", topic]);
            let receiver = self.redis.subscribe(&channel).await?;
            Ok(payloads_of(channel, receiver))
        })
    }
}
