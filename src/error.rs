//! Errors a user can cause. Each prints as one line; the CLI exits with code 2 on them.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    Input { path: PathBuf, message: String },
    #[error("{0}")]
    Usage(String),
}

impl Error {
    /// `map_err(Error::io(path))`: an I/O failure on `path`, as one line.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |e| Error::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    /// `map_err(Error::input(path))`: `path` holds something this tool cannot accept.
    pub fn input(path: &Path) -> impl FnOnce(String) -> Error + '_ {
        move |message| Error::Input {
            path: path.to_path_buf(),
            message,
        }
    }
}
