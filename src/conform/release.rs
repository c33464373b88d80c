//! The Apache Kafka releases the conformance driver runs, and the preset that claims to
//! match each. The claim is what `conform` measures, not what it assumes.

use crate::error::Error;

/// One release line: the newest patch of it that Maven Central serves with its
/// dependencies, and the KRaft preset isrfuzz names for it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Release {
    /// `4.3`.
    pub line: &'static str,
    /// `4.3.1`: the artifacts' version.
    pub version: &'static str,
    /// The KRaft preset that claims this release's rules (`isrfuzz rules`).
    pub preset: &'static str,
    /// AlterPartitionReassignments carries `allowReplicationFactorChange` (KIP-860,
    /// KAFKA-14121: from 4.1; a 4.0 request cannot say false).
    pub rf_change_flag: bool,
    /// The release's test kit builds an SSL trust store with kafka-clients' test classes,
    /// which the release does not publish (4.4.0): the cluster command adds the pom's
    /// `cluster-ssl-helpers` profile.
    pub kit_ssl_helpers: bool,
}

/// Oldest first, each with its release preset (`rules::RELEASE_PRESETS`).
pub const RELEASES: &[Release] = &[
    Release {
        line: "4.0",
        kit_ssl_helpers: false,
        rf_change_flag: false,
        version: "4.0.2",
        preset: "kafka-4.0",
    },
    Release {
        line: "4.1",
        kit_ssl_helpers: false,
        rf_change_flag: true,
        version: "4.1.2",
        preset: "kafka-4.1",
    },
    Release {
        line: "4.2",
        kit_ssl_helpers: false,
        rf_change_flag: true,
        version: "4.2.2",
        preset: "kafka-4.2",
    },
    Release {
        line: "4.3",
        kit_ssl_helpers: false,
        rf_change_flag: true,
        version: "4.3.1",
        preset: "kafka-4.3",
    },
    Release {
        line: "4.4",
        kit_ssl_helpers: true,
        rf_change_flag: true,
        version: "4.4.0",
        preset: "kafka-4.4",
    },
];

impl Release {
    /// `4.3`, `4.3.x` or a patch of the line (`4.3.1`, `4.3.0`): a patch other than the
    /// newest runs that patch's jars. Anything else is a usage error naming the choices.
    pub fn parse(text: &str) -> Result<Release, Error> {
        let lines = || {
            let all: Vec<_> = RELEASES.iter().map(|r| r.version).collect();
            all.join(", ")
        };
        let bad = || {
            Error::Usage(format!(
                "--kafka {text:?}: not a release the driver runs (one of {}, or a line such as 4.3)",
                lines()
            ))
        };
        let mut parts = text.trim().splitn(3, '.');
        let (major, minor) = (parts.next().ok_or_else(bad)?, parts.next().ok_or_else(bad)?);
        let line = format!("{major}.{minor}");
        let release = RELEASES.iter().find(|r| r.line == line).ok_or_else(bad)?;
        match parts.next() {
            None | Some("x") => Ok(*release),
            Some(patch) if !patch.is_empty() && patch.bytes().all(|b| b.is_ascii_digit()) => {
                let version: &'static str = Box::leak(format!("{line}.{patch}").into_boxed_str());
                Ok(Release {
                    version,
                    ..*release
                })
            }
            Some(_) => Err(bad()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_its_newest_patch_and_a_patch_itself() {
        assert_eq!(Release::parse("4.3").unwrap().version, "4.3.1");
        assert_eq!(Release::parse("4.0.x").unwrap().version, "4.0.2");
        assert_eq!(Release::parse("4.3.0").unwrap().version, "4.3.0");
        assert_eq!(Release::parse("4.3.0").unwrap().preset, "kafka-4.3");
        for bad in ["3.9", "4", "4.3.a", "", "5.0.0", "4.3."] {
            let e = Release::parse(bad).unwrap_err().to_string();
            assert!(e.contains("--kafka") && !e.contains('\n'), "{bad}: {e}");
        }
    }
}
