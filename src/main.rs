//! The `isrfuzz` binary: parse the command line and dispatch (see `cli/`).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader goes away (`| head`)
    // instead of panicking on a write to a closed pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        // A file-size limit (`ulimit -f`) makes a write fail with an error, reported as
        // one, instead of killing the process mid-write.
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    match cli::parse() {
        Ok(cli) => cli::run(cli),
        Err(code) => code,
    }
}
