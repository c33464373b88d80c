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
    /// What runs instead of the release's own controller classes, when something does
    /// (`with kafka-21419.patch`, `with the local build /path`): every verdict names it.
    pub change: Option<&'static str>,
}

/// Oldest first, each with its release preset (`rules::RELEASE_PRESETS`).
pub const RELEASES: &[Release] = &[
    Release {
        line: "4.0",
        kit_ssl_helpers: false,
        rf_change_flag: false,
        version: "4.0.2",
        change: None,
        preset: "kafka-4.0",
    },
    Release {
        line: "4.1",
        kit_ssl_helpers: false,
        rf_change_flag: true,
        version: "4.1.2",
        change: None,
        preset: "kafka-4.1",
    },
    Release {
        line: "4.2",
        kit_ssl_helpers: false,
        rf_change_flag: true,
        version: "4.2.2",
        change: None,
        preset: "kafka-4.2",
    },
    Release {
        line: "4.3",
        kit_ssl_helpers: false,
        rf_change_flag: true,
        version: "4.3.1",
        change: None,
        preset: "kafka-4.3",
    },
    Release {
        line: "4.4",
        kit_ssl_helpers: true,
        rf_change_flag: true,
        version: "4.4.0",
        change: None,
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
                "--kafka {text:?}: not a release the driver runs (one of {}, a line such as 4.3, or a local X.Y.Z-SNAPSHOT)",
                lines()
            ))
        };
        // A build of one's own, published to the local Maven repository
        // (`publishToMavenLocal`): its line's preset, or the newest's for a newer line.
        if let Some(base) = text.trim().strip_suffix("-SNAPSHOT") {
            let parts: Vec<&str> = base.splitn(3, '.').collect();
            if parts.len() != 3 || !parts.iter().all(|p| numeric(p)) {
                return Err(bad());
            }
            let line = format!("{}.{}", parts[0], parts[1]);
            let newest = RELEASES[RELEASES.len() - 1];
            let release = RELEASES
                .iter()
                .find(|r| r.line == line)
                .copied()
                .unwrap_or(newest);
            let version: &'static str = Box::leak(text.trim().to_string().into_boxed_str());
            return Ok(Release { version, ..release });
        }
        let mut parts = text.trim().splitn(3, '.');
        let (major, minor) = (parts.next().ok_or_else(bad)?, parts.next().ok_or_else(bad)?);
        let line = format!("{major}.{minor}");
        let release = RELEASES.iter().find(|r| r.line == line).ok_or_else(bad)?;
        match parts.next() {
            None | Some("x") => Ok(*release),
            Some(patch) if numeric(patch) => {
                let version: &'static str = Box::leak(format!("{line}.{patch}").into_boxed_str());
                Ok(Release {
                    version,
                    ..*release
                })
            }
            Some(_) => Err(bad()),
        }
    }

    /// A build from the local Maven repository, not a published release.
    pub fn is_snapshot(&self) -> bool {
        self.version.ends_with("-SNAPSHOT")
    }

    /// The code under test, as verdicts name it: `Apache Kafka 4.3.1`, or with the change.
    pub fn code(&self) -> String {
        match self.change {
            Some(change) => format!("Apache Kafka {} {change}", self.version),
            None => format!("Apache Kafka {}", self.version),
        }
    }
}

/// A version component: digits only, at least one.
fn numeric(part: &str) -> bool {
    !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())
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
        assert_eq!(
            Release::parse("4.3.2-SNAPSHOT").unwrap().preset,
            "kafka-4.3"
        );
        assert!(Release::parse("4.3.2-SNAPSHOT").unwrap().is_snapshot());
        // A line newer than any release: the newest release's preset and flags.
        assert_eq!(
            Release::parse("4.9.0-SNAPSHOT").unwrap().preset,
            "kafka-4.4"
        );
        assert_eq!(
            Release::parse("4.3.1").unwrap().code(),
            "Apache Kafka 4.3.1"
        );
        for bad in [
            "3.9",
            "4",
            "4.3.a",
            "",
            "5.0.0",
            "4.3.",
            "4.3-SNAPSHOT",
            "x.1.0-SNAPSHOT",
        ] {
            let e = Release::parse(bad).unwrap_err().to_string();
            assert!(e.contains("--kafka") && !e.contains('\n'), "{bad}: {e}");
        }
    }
}
