//! Errors a user can cause. Each prints as one line; the CLI exits with code 2 on them.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Input { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
}
