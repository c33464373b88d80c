//! The `isrfuzz` binary: parse the command line and dispatch (see `cli/`).

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader goes away (`| head`)
    // instead of panicking on a write to a closed pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::run(cli::Cli::parse())
}
