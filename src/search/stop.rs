//! A stop request from outside the process (Ctrl-C's SIGINT, SIGTERM). A campaign that
//! dies on a signal loses its summary, and a finding being minimized, so the commands
//! catch the first signal instead: the engines' loops see [`requested`] where they check
//! their budget and end as if it ran out (every finding written, the summary printed).
//!
//! Only the CLI installs the handler ([`install`]); tests and fuzz targets that call the
//! engines never do, and for them [`requested`] stays false. The first signal restores
//! the default dispositions, so a second Ctrl-C kills at once (a stuck run can be ended).

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked to stop, 0 while none has.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signals that ask a run to stop.
#[cfg(unix)]
const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// A stop was asked for: end the loop as if the budget ran out.
pub fn requested() -> bool {
    SIGNAL.load(Ordering::Relaxed) != 0
}

/// The name of the signal that asked to stop (`SIGINT`, `SIGTERM`), for the summary.
pub fn stopped_by() -> Option<&'static str> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        libc::SIGINT => Some("SIGINT"),
        libc::SIGTERM => Some("SIGTERM"),
        _ => Some("a signal"),
    }
}

/// Catch the first SIGINT or SIGTERM (the CLI's long-running commands only). Elsewhere
/// than on Unix the default dispositions stay.
#[cfg(not(unix))]
pub fn install() {}

/// Catch the first SIGINT or SIGTERM (the CLI's long-running commands only).
#[cfg(unix)]
pub fn install() {
    for sig in SIGNALS {
        // SAFETY: a zeroed sigaction is a valid value to fill in; the handler only stores
        // to an atomic and calls sigaction, both async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // Restart interrupted reads and writes (the JVM's pipe): the loop, not a
            // failing system call, ends the run.
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::Relaxed);
    for s in SIGNALS {
        // SAFETY: sigaction is async-signal-safe; SIG_DFL makes the next signal end the
        // process the usual way.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(s, &action, std::ptr::null_mut());
        }
    }
}
