//! A JVM's stdin and stdout served from the caller's own thread: both non-blocking, waited
//! on with `poll`, so a wait is bounded without a reader or writer thread.
//!
//! Why not threads: a judge exchanges a few thousand short lines a second with its JVM,
//! on one core. A thread per pipe cost two wake-ups and a channel hand-off per line; on one
//! core those context switches were about half of isrfuzz's own time in a brokers run.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::process::{ChildStdin, ChildStdout};
use std::time::Duration;

/// How much one `read` takes from the JVM's stdout.
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// One line from the JVM's stdout, or why there is none.
pub enum Line {
    Text(String),
    /// Its stdout closed (a last line without its newline counts as closed too).
    Eof,
    /// A line longer than the limit.
    TooLong,
}

/// The two pipes, with what is still to be written and what was read past the last line.
pub struct Pipes {
    /// `None` once the JVM stopped reading (a write failed): dropping it closes its stdin.
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// Lines sent and not yet taken by the pipe (it holds 64 KiB; a JVM busy with a
    /// request reads the next one later).
    out: Vec<u8>,
    /// Bytes read and not yet returned as a line.
    input: Vec<u8>,
    /// How far `input` is known to hold no newline.
    scanned: usize,
    eof: bool,
    line_bytes_max: usize,
}

impl Pipes {
    pub fn new(stdin: ChildStdin, stdout: ChildStdout, line_bytes_max: usize) -> Pipes {
        set_nonblocking(stdin.as_raw_fd());
        set_nonblocking(stdout.as_raw_fd());
        Pipes {
            stdin: Some(stdin),
            stdout,
            out: Vec::new(),
            input: Vec::new(),
            scanned: 0,
            eof: false,
            line_bytes_max,
        }
    }

    /// Queues `bytes` and writes what the pipe takes now; never blocks.
    pub fn send(&mut self, bytes: &[u8]) {
        if self.stdin.is_some() {
            self.out.extend_from_slice(bytes);
            self.flush();
        }
    }

    /// Whether every queued byte has been written (or the JVM stopped reading).
    pub fn flushed(&self) -> bool {
        self.out.is_empty()
    }

    /// Closes the JVM's stdin (what was not written is dropped).
    pub fn close_input(&mut self) {
        self.out.clear();
        self.stdin = None;
    }

    /// The next line if one comes within `wait` (`None`: none yet). Queued bytes are
    /// written meanwhile.
    pub fn next_line(&mut self, wait: Duration) -> Option<Line> {
        if let Some(line) = self.take_line() {
            return Some(line);
        }
        self.wait(wait);
        self.take_line()
    }

    /// Waits at most `wait` for the queued bytes to be written.
    pub fn drain(&mut self, wait: Duration) {
        if !self.flushed() {
            self.wait(wait);
        }
    }

    /// A complete line from `input`, or the end.
    fn take_line(&mut self) -> Option<Line> {
        let at = self.input[self.scanned..].iter().position(|&b| b == b'\n');
        match at {
            Some(i) => {
                let end = self.scanned + i;
                if end > self.line_bytes_max {
                    return Some(Line::TooLong);
                }
                let text = String::from_utf8_lossy(&self.input[..end]).into_owned();
                self.input.drain(..=end);
                self.scanned = 0;
                Some(Line::Text(text))
            }
            None => {
                self.scanned = self.input.len();
                if self.input.len() > self.line_bytes_max {
                    Some(Line::TooLong)
                } else if self.eof {
                    Some(Line::Eof)
                } else {
                    None
                }
            }
        }
    }

    /// One `poll` of at most `wait`: reads what stdout has, writes what stdin takes.
    fn wait(&mut self, wait: Duration) {
        let writing = !self.out.is_empty();
        let mut fds = [
            libc::pollfd {
                fd: self.stdout.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            // Watched only while bytes wait: a pipe whose reader is gone reports POLLERR
            // whatever is asked, and would end every wait at once.
            libc::pollfd {
                fd: match (&self.stdin, writing) {
                    (Some(s), true) => s.as_raw_fd(),
                    _ => -1,
                },
                events: libc::POLLOUT,
                revents: 0,
            },
        ];
        let ms = wait.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a valid array of two pollfd for the call's duration; a negative
        // fd is ignored by poll.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if ready <= 0 {
            return; // timed out, or interrupted: the caller looks at the clock
        }
        if fds[0].revents != 0 {
            self.read();
        }
        if fds[1].revents != 0 {
            self.flush();
        }
    }

    /// Reads what stdout holds now.
    fn read(&mut self) {
        self.input.reserve(READ_CHUNK_BYTES);
        let spare = self.input.spare_capacity_mut();
        // SAFETY: `spare` is this vector's allocated, unused capacity, `spare.len()` bytes.
        let n = unsafe {
            libc::read(
                self.stdout.as_raw_fd(),
                spare.as_mut_ptr().cast(),
                spare.len(),
            )
        };
        let err = std::io::Error::last_os_error().kind();
        if let Ok(read) = usize::try_from(n) {
            // SAFETY: `read` bytes past the length were just written by `read`.
            unsafe { self.input.set_len(self.input.len() + read) };
        }
        match n {
            0 => self.eof = true,
            n if n < 0 => {
                let retry = matches!(
                    err,
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                );
                self.eof |= !retry;
            }
            _ => {}
        }
    }

    /// Writes what the pipe takes now. A JVM that stopped reading is one that died: its
    /// stdin is closed and the death shows when its stdout is read.
    fn flush(&mut self) {
        while let (false, Some(stdin)) = (self.out.is_empty(), self.stdin.as_mut()) {
            match write_without_sigpipe(stdin, &self.out) {
                Ok(n) => {
                    self.out.drain(..n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
                Err(_) => self.close_input(),
            }
        }
    }
}

/// One `write`, with SIGPIPE blocked on this thread meanwhile: the binary keeps SIGPIPE's
/// default (so that `isrfuzz ... | head` ends quietly), under which a write to a dead JVM
/// would kill isrfuzz instead of failing with EPIPE. A SIGPIPE the write raised is taken
/// off this thread's pending set before the mask is restored.
fn write_without_sigpipe(stdin: &mut ChildStdin, bytes: &[u8]) -> std::io::Result<usize> {
    // SAFETY: the sigsets are zeroed then filled by sigemptyset/sigaddset before use; the
    // mask changed is this thread's own and is restored before returning.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        let result = stdin.write(bytes);
        let broken = matches!(&result, Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe);
        if broken && libc::sigismember(&old, libc::SIGPIPE) == 0 {
            let zero = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            libc::sigtimedwait(&set, std::ptr::null_mut(), &zero);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        result
    }
}

fn set_nonblocking(fd: libc::c_int) {
    // SAFETY: fcntl on a file descriptor this process owns (a child's pipe end).
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Child, Command, Stdio};

    fn spawn(script: &str, line_bytes_max: usize) -> (Child, Pipes) {
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        (child, Pipes::new(stdin, stdout, line_bytes_max))
    }

    /// Waits up to 10 s for the next line or end.
    fn line(p: &mut Pipes) -> Line {
        for _ in 0..200 {
            if let Some(l) = p.next_line(Duration::from_millis(50)) {
                return l;
            }
        }
        panic!("no line in 10 s");
    }

    fn text(l: Line) -> String {
        match l {
            Line::Text(t) => t,
            Line::Eof => panic!("eof"),
            Line::TooLong => panic!("too long"),
        }
    }

    #[test]
    fn lines_go_both_ways_and_a_closed_stdin_ends_the_child() {
        let (mut child, mut p) = spawn("cat", 16);
        p.send(b"one\ntw");
        p.send(b"o\n");
        assert_eq!(text(line(&mut p)), "one");
        assert_eq!(text(line(&mut p)), "two");
        p.close_input();
        assert!(matches!(line(&mut p), Line::Eof));
        assert!(child.wait().unwrap().success());
    }

    #[test]
    fn a_line_over_the_limit_is_too_long_and_one_at_it_is_not() {
        let (mut child, mut p) = spawn("printf '0123456789\\n01234567890\\n'", 10);
        assert_eq!(text(line(&mut p)), "0123456789");
        assert!(matches!(line(&mut p), Line::TooLong));
        child.wait().unwrap();
    }

    #[test]
    fn a_last_line_without_its_newline_is_the_end() {
        let (mut child, mut p) = spawn("printf 'abc'", 10);
        assert!(matches!(line(&mut p), Line::Eof));
        child.wait().unwrap();
    }

    #[test]
    fn writing_to_a_child_that_is_gone_fails_quietly() {
        let (mut child, mut p) = spawn("exec true", 10);
        child.wait().unwrap();
        // More than a pipe holds: the write must fail (EPIPE), not block or kill.
        p.send(&vec![b'x'; 256 * 1024]);
        assert!(p.flushed(), "a failed write drops what was queued");
        assert!(matches!(line(&mut p), Line::Eof));
    }

    #[test]
    fn a_silent_child_is_waited_for_not_spun_on() {
        let (mut child, mut p) = spawn("exec sleep 5", 10);
        p.send(b"unread\n");
        let started = std::time::Instant::now();
        let mut polls = 0;
        while started.elapsed() < Duration::from_millis(300) {
            assert!(p.next_line(Duration::from_millis(100)).is_none());
            polls += 1;
        }
        assert!(
            polls <= 4,
            "{polls} waits in 300 ms: each should take its 100 ms"
        );
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
