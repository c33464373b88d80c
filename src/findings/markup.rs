//! The ticket's few shapes of text, rendered as GitHub Markdown or JIRA wiki markup.

use std::fmt::Write;

/// Where the ticket is pasted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// GitHub Markdown.
    Md,
    /// JIRA wiki markup (issues.apache.org).
    Jira,
}

impl Format {
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "md" => Some(Format::Md),
            "jira" => Some(Format::Jira),
            _ => None,
        }
    }
}

/// One piece of a ticket.
pub enum Block {
    Heading(String),
    Para(String),
    Bullets(Vec<String>),
    /// Bullets, each with bullets of its own.
    Tree(Vec<(String, Vec<String>)>),
    Code(&'static str, String),
}

/// The blocks as text in `format`; the first heading is the title.
pub fn render(blocks: &[Block], format: Format) -> String {
    let mut out = String::new();
    let mut first = true;
    for b in blocks {
        match (b, format) {
            (Block::Heading(h), Format::Md) => {
                let level = if first { "#" } else { "##" };
                let _ = writeln!(out, "{level} {h}\n");
            }
            (Block::Heading(h), Format::Jira) => {
                let level = if first { "h1." } else { "h2." };
                let _ = writeln!(out, "{level} {h}\n");
            }
            (Block::Para(p), _) => {
                let _ = writeln!(out, "{}\n", inline(p, format));
            }
            (Block::Bullets(items), _) => {
                for i in items {
                    let _ = writeln!(out, "{} {}", bullet(format), inline(i, format));
                }
                out.push('\n');
            }
            (Block::Tree(items), _) => {
                let sub = match format {
                    Format::Md => "  -",
                    Format::Jira => "**",
                };
                for (item, children) in items {
                    let _ = writeln!(out, "{} {}", bullet(format), inline(item, format));
                    for c in children {
                        let _ = writeln!(out, "{sub} {}", inline(c, format));
                    }
                }
                out.push('\n');
            }
            (Block::Code(lang, text), Format::Md) => {
                let _ = writeln!(out, "```{lang}\n{}\n```\n", text.trim_end());
            }
            (Block::Code(lang, text), Format::Jira) => {
                let tag = if ["json", "sh", "java"].contains(lang) {
                    format!("{{code:{}}}", if *lang == "sh" { "bash" } else { lang })
                } else {
                    "{noformat}".to_string()
                };
                let close = if tag.starts_with("{code") {
                    "{code}"
                } else {
                    "{noformat}"
                };
                let _ = writeln!(out, "{tag}\n{}\n{close}\n", text.trim_end());
            }
        }
        first = false;
    }
    out
}

fn bullet(format: Format) -> &'static str {
    match format {
        Format::Md => "-",
        Format::Jira => "*",
    }
}

/// Inline code spans (`x`) in the target markup: JIRA writes them {{x}}.
fn inline(text: &str, format: Format) -> String {
    match format {
        Format::Md => text.to_string(),
        Format::Jira => {
            let mut out = String::new();
            for (i, part) in text.split('`').enumerate() {
                if i % 2 == 1 {
                    let _ = write!(out, "{{{{{part}}}}}");
                } else {
                    // JIRA reads `[`, `*` and `_` as markup; escape them in prose.
                    for c in part.chars() {
                        if matches!(c, '[' | ']' | '*' | '_' | '{' | '}' | '|') {
                            out.push('\\');
                        }
                        out.push(c);
                    }
                }
            }
            out
        }
    }
}

/// `text` without references into this repository (`docs/…`, `src/…`, `tests/…`): a
/// ticket is read where the repository is not.
pub fn without_repo_paths(text: &str) -> String {
    let local = |w: &str| {
        let w = w.trim_start_matches('(');
        ["docs/", "src/", "tests/"].iter().any(|p| w.starts_with(p))
    };
    let kept: Vec<&str> = text.split(' ').filter(|w| !local(w)).collect();
    let joined = kept.join(" ");
    let trimmed = joined.trim_end_matches([' ', ':', ',', ';']);
    let mut out = trimmed
        .replace(" ()", "")
        .replace(": .", ".")
        .replace(" .", ".");
    if text.ends_with('.') && !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// The upstream part of a provenance or source text: its repository-local references
/// (`docs/…`, `tests/…`) left out.
pub fn upstream(text: &str) -> String {
    let parts: Vec<&str> = text
        .split(';')
        .map(str::trim)
        .filter(|p| !(p.starts_with("docs/") || p.starts_with("tests/") || p.starts_with("src/")))
        .collect();
    if parts.is_empty() {
        "none (no upstream commit)".into()
    } else {
        parts.join("; ")
    }
}
