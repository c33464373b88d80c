//! A stop request from outside the process (Ctrl-C's SIGINT, SIGTERM). A campaign that
//! dies on a signal loses its summary, and a finding being minimized, so the commands
//! catch the signal instead: the engines' loops see [`requested`] where they check their
//! budget and end as if it ran out (every finding written, the summary printed).
//!
//! Only the CLI installs the handler ([`install`]); tests and fuzz targets that call the
//! engines never do, and for them [`requested`] stays false.
//!
//! Signals within [`REPEAT_WINDOW_MS`] of the first are the same request: GNU `timeout`
//! signals the process and then its process group, so one timeout arrives as two SIGTERMs
//! microseconds apart, and a key held down repeats. A signal after the window is a person
//! asking again: the process ends at once, by that signal's default action, after killing
//! the process groups of the judges it started ([`guard_group`]), which would otherwise
//! outlive it.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// Signals closer than this to the first count as the same stop request.
pub const REPEAT_WINDOW_MS: u64 = 250;

/// The signal that asked to stop, 0 while none has.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// When the first signal came (CLOCK_MONOTONIC, ns, at least 1), 0 while none has.
static FIRST_NS: AtomicU64 = AtomicU64::new(0);
/// Process groups to kill if a second signal ends the process (0: a free slot).
static GROUPS: [AtomicI32; GROUPS_MAX] = [const { AtomicI32::new(0) }; GROUPS_MAX];
/// Judges running at once at most (one JVM per conform run today).
const GROUPS_MAX: usize = 8;

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

/// Have the process group `pgid` killed if a second signal ends the process; the slot,
/// for [`release_group`] (`None` when every slot is taken: it is then not killed).
pub fn guard_group(pgid: i32) -> Option<usize> {
    GROUPS.iter().position(|g| {
        g.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// The group of `slot` is gone (reaped by its owner).
pub fn release_group(slot: Option<usize>) {
    if let Some(i) = slot {
        GROUPS[i].store(0, Ordering::SeqCst);
    }
}

/// Catch SIGINT and SIGTERM (the CLI's long-running commands only). Elsewhere than on
/// Unix the default dispositions stay.
#[cfg(not(unix))]
pub fn install() {}

/// Catch SIGINT and SIGTERM (the CLI's long-running commands only).
#[cfg(unix)]
pub fn install() {
    for sig in SIGNALS {
        // SAFETY: a zeroed sigaction is a valid value to fill in; the handler only reads
        // the clock, touches atomics and calls kill, sigaction and raise, all
        // async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // Restart interrupted reads and writes: the loop, not a failing system call,
            // ends the run.
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            // Both signals blocked while either is handled: one handler at a time.
            for s in SIGNALS {
                libc::sigaddset(&mut action.sa_mask, s);
            }
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds, at least 1 (0 means "no signal yet").
#[cfg(unix)]
fn monotonic_ns() -> u64 {
    // SAFETY: clock_gettime writes the zeroed timespec it is given; async-signal-safe.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
        .max(1)
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    let now = monotonic_ns();
    match FIRST_NS.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
        Ok(_) => {
            SIGNAL.store(sig, Ordering::SeqCst);
            return;
        }
        Err(first) if now.saturating_sub(first) < REPEAT_WINDOW_MS * 1_000_000 => return,
        Err(_) => {}
    }
    for g in &GROUPS {
        let pgid = g.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill is async-signal-safe; the group is one this process started.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
    // SAFETY: sigaction and raise are async-signal-safe. The signal is blocked while its
    // handler runs, so the raised one is delivered, under SIG_DFL, when it returns.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(sig, &action, std::ptr::null_mut());
        libc::raise(sig);
    }
}
