//! Rule `seal-fetch` (Inkless, docs/model/inkless.md#at-seal-fetch): whether a follower fetch on a
//! diskless topic is served from the leader's local log or by the at-seal branch.
//! Upstream: aiven/inkless core/src/main/scala/kafka/server/ReplicaManager.scala,
//! `fetchMessages` (`shouldReadFromUnifiedLog`, `followerAtOrAboveSeal`).

use crate::model::SEAL_PENDING;

rule! {
    pub enum SealFetch {
        id: "seal-fetch",
        family: Inkless,
        field: seal_fetch,
        summary: "whether a follower fetch at or above the seal on a consolidating leader reads the local log (docs/model/inkless.md#at-seal-fetch)",
        variants: {
            /// `local-log` (#756 branch and main): on a consolidating leader any fetch below the
            /// leader's LEO reads the local log, even at or above the seal (CE-d).
            LocalLog {
                name: "local-log",
                summary: "any fetch below the leader's LEO reads the local log",
                provenance: "ReplicaManager.fetchMessages at main and 5f22fac12b",
            },
            /// `at-seal-exclusion` (#760, commit 13ae69df5c): a follower at or above a committed
            /// seal is answered by the at-seal branch (no records, HW = seal).
            AtSealExclusion {
                name: "at-seal-exclusion",
                summary: "a follower at or above a committed seal gets the at-seal answer",
                provenance: "aiven/inkless #760 commit 13ae69df5c",
            },
        },
    }
}

impl SealFetch {
    pub fn reads_local_log(
        self,
        consolidating: bool,
        seal: i64,
        fetch_offset: i64,
        leader_leo: i64,
    ) -> bool {
        if seal == SEAL_PENDING {
            return true;
        }
        if !consolidating {
            return seal >= 0 && fetch_offset < seal;
        }
        let at_or_above_seal = seal >= 0 && fetch_offset >= seal;
        match self {
            SealFetch::LocalLog => fetch_offset < leader_leo,
            SealFetch::AtSealExclusion => fetch_offset < leader_leo && !at_or_above_seal,
        }
    }
}
