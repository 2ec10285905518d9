//! Which protocol versions a server serves, and legacy version negotiation.

use crate::version::{Era, ProtocolVersion};

/// The versions a server serves in each era.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerVersions {
    modern: Vec<ProtocolVersion>,
    legacy: Vec<ProtocolVersion>,
}

impl Default for ServerVersions {
    /// Dual-era: 2026-07-28, and 2025-11-25 down to 2024-11-05 through `initialize`.
    fn default() -> Self {
        Self::new(ProtocolVersion::KNOWN)
    }
}

impl ServerVersions {
    /// Serves exactly `versions`, split by era.
    pub fn new(versions: impl IntoIterator<Item = ProtocolVersion>) -> Self {
        let (mut modern, mut legacy): (Vec<_>, Vec<_>) =
            versions.into_iter().partition(|v| v.era() == Era::Modern);
        for list in [&mut modern, &mut legacy] {
            list.sort_unstable_by(|a, b| b.cmp(a));
            list.dedup();
        }
        Self { modern, legacy }
    }

    /// A modern-only server: no `initialize`, no sessions.
    pub fn modern_only() -> Self {
        Self::new([ProtocolVersion::V2026_07_28])
    }

    /// Whether `version` is served.
    pub fn supports(&self, version: ProtocolVersion) -> bool {
        self.modern.contains(&version) || self.legacy.contains(&version)
    }

    /// Whether any legacy version is served (and so `initialize` and sessions exist).
    pub fn serves_legacy(&self) -> bool {
        !self.legacy.is_empty()
    }

    /// Every version served, newest first: the `supported` list of `-32022` and
    /// `DiscoverResult.supportedVersions`.
    pub fn all(&self) -> Vec<ProtocolVersion> {
        self.modern.iter().chain(&self.legacy).copied().collect()
    }

    /// The modern versions served, newest first.
    pub fn modern(&self) -> &[ProtocolVersion] {
        &self.modern
    }

    /// The legacy version to answer an `initialize` that asked for `requested`: the same
    /// version when served, otherwise the newest legacy version (2025-11-25 lifecycle).
    /// `None` when no legacy version is served.
    pub fn negotiate_legacy(&self, requested: &str) -> Option<ProtocolVersion> {
        let newest = *self.legacy.first()?;
        Some(ProtocolVersion::parse(requested).filter(|v| self.legacy.contains(v)).unwrap_or(newest))
    }
}
