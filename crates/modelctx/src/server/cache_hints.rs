//! Cache hints per definition: a tool, prompt, resource or template may say how long what is
//! listed of it stays fresh and who may reuse it, in place of the server's
//! [`ServerOptions::cache`](super::ServerOptions::cache). A listing page carries one `ttlMs`
//! and one `cacheScope`, so the hints of its definitions are merged: the page is fresh as long
//! as its shortest-lived definition, and `private` on every page when any definition of the
//! whole list is (CACHE-08: all pages of a list share one scope). A resource's or template's
//! hints are also those of its `resources/read`, unless the handler sets its own
//! ([`RequestContext::set_cache`](super::RequestContext::set_cache)).

use modelctx_protocol::v2026::CacheScope;

use super::CacheDefaults;

/// Declares the `cache` setter of a definition with a `cache: Option<CacheDefaults>` field.
macro_rules! cache_setter {
    () => {
        /// Cache hints for what 2026-07-28 listings show of this definition (and, for a
        /// resource or template, its reads), in place of the server's
        /// [`ServerOptions::cache`](crate::server::ServerOptions::cache): fresh for `ttl`,
        /// reusable by `scope`. A page listing it is fresh only as long as its
        /// shortest-lived entry, and a list with any `private` entry is `private` throughout.
        pub fn cache(
            mut self,
            ttl: std::time::Duration,
            scope: modelctx_protocol::v2026::CacheScope,
        ) -> Self {
            self.cache = Some(crate::server::CacheDefaults::new(ttl, scope));
            self
        }
    };
}
pub(crate) use cache_setter;

/// The hints of one listing page: `page` holds the hints of its definitions, `whole` those of
/// every definition of the list (each `None` takes the server's `default`).
pub(crate) fn page_hints(
    default: CacheDefaults,
    whole: impl IntoIterator<Item = Option<CacheDefaults>>,
    page: impl IntoIterator<Item = Option<CacheDefaults>>,
) -> CacheDefaults {
    let own = |hints: Option<CacheDefaults>| hints.unwrap_or(default);
    let mut whole = whole.into_iter().map(own).peekable();
    let scope = if whole.peek().is_none() {
        default.scope
    } else if whole.any(|hints| hints.scope == CacheScope::Private) {
        CacheScope::Private
    } else {
        CacheScope::Public
    };
    let ttl_ms = page.into_iter().map(own).map(|hints| hints.ttl_ms).min().unwrap_or(default.ttl_ms);
    CacheDefaults { ttl_ms, scope }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(ttl_ms: u64, scope: CacheScope) -> Option<CacheDefaults> {
        Some(CacheDefaults { ttl_ms, scope })
    }

    #[test]
    fn a_page_lasts_as_long_as_its_shortest_entry_and_one_private_entry_makes_every_page_private() {
        let default = CacheDefaults { ttl_ms: 60_000, scope: CacheScope::Public };
        let whole = [hints(1_000, CacheScope::Public), None, hints(5_000, CacheScope::Private)];
        // The first page: a 1 s entry and one of the server's.
        let first = page_hints(default, whole, [whole[0], whole[1]]);
        assert_eq!(first, CacheDefaults { ttl_ms: 1_000, scope: CacheScope::Private });
        // The last page: the private entry alone.
        let last = page_hints(default, whole, [whole[2]]);
        assert_eq!(last, CacheDefaults { ttl_ms: 5_000, scope: CacheScope::Private });
        // Entries without hints of their own take the server's.
        assert_eq!(page_hints(default, [None, None], [None]), default);
        assert_eq!(page_hints(default, [], []), default);
        // An entry's own public hint over a private default: public when every entry says so.
        let private = CacheDefaults { ttl_ms: 0, scope: CacheScope::Private };
        let all_public = [hints(10, CacheScope::Public)];
        assert_eq!(page_hints(private, all_public, all_public).scope, CacheScope::Public);
        assert_eq!(page_hints(private, [all_public[0], None], all_public).scope, CacheScope::Private);
    }
}
