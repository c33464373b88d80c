//! The system under test when it is not a release's own controller: a patch to the
//! release's metadata sources (`conform --patch`), or one's own build put first on the
//! classpath (`--classpath`). Either becomes a classpath file whose first entry holds the
//! changed classes and whose rest is the release's jars, so the driver, the brokers and
//! every class the change does not touch stay the release's. Same-package classes earlier
//! on a plain classpath replace the jar's (Kafka's jars are not sealed).
//!
//! Every bad input is one line and exit 2 (`Error::Usage`, `Error::Input`), and a failure
//! leaves no scratch folder: the patched sources are built in one that is removed when
//! dropped, and only a finished build is moved into the cache (`target/patched/`).

use super::driver::{build, local_repository, repository_option};
use super::patch::{apply, parse, FilePatch};
use super::release::Release;
use crate::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The class whose presence says a classpath entry holds the controller.
const CONTROLLER_CLASS: &str = "org/apache/kafka/controller/ReplicationControlManager.class";

/// Patch files read at most, and bytes per file.
pub const PATCHES_MAX: usize = 32;
pub const PATCH_BYTES_MAX: u64 = 16 << 20;

/// What runs as the controller: the release's jars, patched, or a local build first.
#[derive(Clone, Copy, Debug)]
pub enum Change<'a> {
    Release,
    Patches(&'a [PathBuf]),
    Classpath(&'a str),
}

/// The release (labelled with the change) and the classpath file the driver starts on.
pub fn prepare(dir: &Path, release: Release, change: Change) -> Result<(Release, PathBuf), Error> {
    let base = build(dir, &release)?;
    let (label, file) = match change {
        Change::Release => return Ok((release, base)),
        Change::Patches(files) => {
            let names: Vec<String> = files
                .iter()
                .map(|f| {
                    f.file_name()
                        .map_or_else(|| f.display().to_string(), |n| n.to_string_lossy().into())
                })
                .collect();
            let file = patched(dir, &release, &base, files)?;
            (format!("with {}", names.join(" + ")), file)
        }
        Change::Classpath(entries) => {
            let file = local_build(dir, &release, &base, entries)?;
            (format!("with the local build {entries}"), file)
        }
    };
    let change = Some(&*Box::leak(label.into_boxed_str()));
    Ok((Release { change, ..release }, file))
}

/// FNV-1a over the parts: the cache key of a build.
fn key(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.iter().chain(&[0xff]) {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The classpath file: `first`, then the release's jars.
fn write_classpath(file: &Path, first: &str, base: &Path) -> Result<(), Error> {
    let jars = std::fs::read_to_string(base).map_err(Error::io(base))?;
    std::fs::write(file, format!("{first}:{}", jars.trim())).map_err(Error::io(file))
}

/// A folder removed when dropped, whatever ended the build.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The patches read, parsed and applied to the release's sources, compiled against its
/// jars; cached by the release and the patches' bytes.
fn patched(
    dir: &Path,
    release: &Release,
    base: &Path,
    files: &[PathBuf],
) -> Result<PathBuf, Error> {
    if files.len() > PATCHES_MAX {
        return Err(Error::Usage(format!(
            "--patch takes at most {PATCHES_MAX} files"
        )));
    }
    let mut texts = Vec::new();
    let mut patches: Vec<FilePatch> = Vec::new();
    for path in files {
        let size = path.metadata().map_err(Error::io(path))?.len();
        if size > PATCH_BYTES_MAX {
            return Err(Error::Input {
                path: path.clone(),
                message: format!("larger than {PATCH_BYTES_MAX} bytes"),
            });
        }
        let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
        patches.extend(parse(&text).map_err(|message| Error::Input {
            path: path.clone(),
            message,
        })?);
        texts.push(text);
    }
    let jar = sources_jar(dir, release)?;
    // The sources jar's size and time are in the key: a snapshot published again is
    // patched and compiled again (a release's jar never changes).
    let stamp = jar
        .metadata()
        .map(|m| format!("{} {:?}", m.len(), m.modified().ok()));
    let stamp = stamp.unwrap_or_default();
    let mut parts: Vec<&[u8]> = vec![release.version.as_bytes(), stamp.as_bytes()];
    parts.extend(texts.iter().map(|t| t.as_bytes()));
    let id = format!("{}-{:016x}", release.version, key(&parts));
    let root = dir.join("target/patched");
    let cache = root.join(&id);
    let classpath = cache.join("classpath.txt");
    if classpath.is_file() {
        return Ok(classpath);
    }
    std::fs::create_dir_all(&root).map_err(Error::io(&root))?;
    let scratch = Scratch(root.join(format!(".building-{}-{id}", std::process::id())));
    let sources = scratch.0.join("src");
    let changed = apply_all(&patches, &jar, &sources, release)?;
    let classes = scratch.0.join("classes");
    compile(&changed, &sources, &classes, base, release)?;
    std::fs::create_dir_all(&cache).map_err(Error::io(&cache))?;
    let kept = cache.join("classes");
    let _ = std::fs::remove_dir_all(&kept);
    std::fs::rename(&classes, &kept).map_err(Error::io(&kept))?;
    write_classpath(&classpath, &kept.display().to_string(), base)?;
    Ok(classpath)
}

/// Each file patch applied in order to the sources jar's file (or to the same file as an
/// earlier patch left it), written under `sources`; the files changed.
fn apply_all(
    patches: &[FilePatch],
    jar: &Path,
    sources: &Path,
    release: &Release,
) -> Result<Vec<PathBuf>, Error> {
    let mut changed: Vec<PathBuf> = Vec::new();
    for patch in patches {
        let target = sources.join(&patch.path);
        let before = if target.is_file() {
            std::fs::read_to_string(&target).map_err(Error::io(&target))?
        } else if patch.created {
            String::new()
        } else {
            read_entry(jar, &patch.path, release)?
        };
        let after = apply(patch, &before).map_err(|m| {
            Error::Usage(format!(
                "the patch does not apply to Kafka {}'s sources: {m}",
                release.version
            ))
        })?;
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        std::fs::write(&target, after).map_err(Error::io(&target))?;
        if !changed.contains(&target) {
            changed.push(target);
        }
    }
    Ok(changed)
}

/// The release's `kafka-metadata` sources jar, fetched by Maven the first time.
fn sources_jar(dir: &Path, release: &Release) -> Result<PathBuf, Error> {
    let v = release.version;
    let jar = local_repository().join(format!(
        "org/apache/kafka/kafka-metadata/{v}/kafka-metadata-{v}-sources.jar"
    ));
    if !jar.is_file() && !release.is_snapshot() {
        let _ = Command::new("mvn")
            .current_dir(dir)
            .args([
                "-q",
                "-B",
                "-Dstyle.color=never",
                "dependency:get",
                "-Dtransitive=false",
            ])
            .args(repository_option())
            .arg(format!(
                "-Dartifact=org.apache.kafka:kafka-metadata:{v}:jar:sources"
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    if jar.is_file() {
        return Ok(jar);
    }
    Err(Error::Usage(format!(
        "Kafka {v} has no sources jar of kafka-metadata (not in the Maven repositories or {}), which --patch applies to; judge a build of your own with --classpath",
        jar.parent().unwrap_or(&jar).display()
    )))
}

/// One file of a jar, with `unzip`.
fn read_entry(jar: &Path, entry: &str, release: &Release) -> Result<String, Error> {
    let out = Command::new("unzip")
        .arg("-p")
        .arg(jar)
        .arg(entry)
        .stderr(Stdio::null())
        .output()
        .map_err(Error::io(jar))?;
    if !out.status.success() || out.stdout.is_empty() {
        return Err(Error::Usage(format!(
            "the patch changes {entry}, which is not in Kafka {}'s kafka-metadata sources",
            release.version
        )));
    }
    String::from_utf8(out.stdout)
        .map_err(|_| Error::Usage(format!("{entry}: not UTF-8 in the sources jar")))
}

/// `javac` of the changed files only, against the release's jars; every class file they
/// emit is kept (lambda and inner-class numbering may differ from the release's build).
fn compile(
    files: &[PathBuf],
    sources: &Path,
    classes: &Path,
    base: &Path,
    release: &Release,
) -> Result<(), Error> {
    std::fs::create_dir_all(classes).map_err(Error::io(classes))?;
    let jars = std::fs::read_to_string(base).map_err(Error::io(base))?;
    let out = Command::new("javac")
        .args([
            "--release",
            "17",
            "-implicit:none",
            "-proc:none",
            "-nowarn",
            "-encoding",
            "UTF-8",
        ])
        .arg("-d")
        .arg(classes)
        .arg("-cp")
        .arg(jars.trim())
        .args(files)
        .output()
        .map_err(|e| {
            Error::Usage(format!(
                "--patch needs javac (a JDK 17 or newer on PATH): {e}"
            ))
        })?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("{}/", sources.display());
    let first = text
        .lines()
        .find(|l| l.contains(": error:"))
        .or_else(|| text.lines().next())
        .unwrap_or("javac failed without a message");
    Err(Error::Usage(format!(
        "the patched sources do not compile against Kafka {}: {}",
        release.version,
        first.replace(&prefix, "").trim()
    )))
}

/// `--classpath`: the entries must exist and one must hold the controller's classes.
fn local_build(
    dir: &Path,
    release: &Release,
    base: &Path,
    entries: &str,
) -> Result<PathBuf, Error> {
    let mut absolute = Vec::new();
    for entry in entries.split(':').filter(|e| !e.is_empty()) {
        let path = Path::new(entry);
        if !path.exists() {
            return Err(Error::Usage(format!("--classpath: {entry} does not exist")));
        }
        absolute.push(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()));
    }
    if !absolute.iter().any(|p| holds_controller(p)) {
        return Err(Error::Usage(format!(
            "--classpath {entries}: no controller classes ({CONTROLLER_CLASS} is in none of its entries)"
        )));
    }
    let joined: Vec<String> = absolute.iter().map(|p| p.display().to_string()).collect();
    let joined = joined.join(":");
    let target = dir.join("target");
    std::fs::create_dir_all(&target).map_err(Error::io(&target))?;
    let id = key(&[release.version.as_bytes(), joined.as_bytes()]);
    let file = target.join(format!("classpath-local-{}-{id:016x}.txt", release.version));
    write_classpath(&file, &joined, base)?;
    Ok(file)
}

/// A classes folder or a jar with the controller in it.
fn holds_controller(entry: &Path) -> bool {
    if entry.is_dir() {
        return entry.join(CONTROLLER_CLASS).is_file();
    }
    Command::new("unzip")
        .arg("-l")
        .arg(entry)
        .arg(CONTROLLER_CLASS)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_keyed_by_every_part_and_their_boundaries() {
        assert_ne!(key(&[b"4.3.1", b"ab"]), key(&[b"4.3.1", b"a", b"b"]));
        assert_ne!(key(&[b"4.3.1", b"x"]), key(&[b"4.0.2", b"x"]));
        assert_eq!(key(&[b"4.3.1", b"x"]), key(&[b"4.3.1", b"x"]));
    }

    #[test]
    fn a_folder_without_the_controller_is_not_a_controller_build() {
        let dir = std::env::temp_dir().join(format!("isrfuzz-sut-{}", std::process::id()));
        let _scratch = Scratch(dir.clone());
        std::fs::create_dir_all(dir.join("org/apache/kafka/controller")).unwrap();
        assert!(!holds_controller(&dir));
        std::fs::write(dir.join(CONTROLLER_CLASS), b"").unwrap();
        assert!(holds_controller(&dir));
    }
}
