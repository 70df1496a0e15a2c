//! Progress on stderr: a spinner while long work runs on a terminal; elsewhere (a log, a
//! pipe) one plain line per stage, `[encint] generating keys`, so that a log shows what
//! ran. Every key generation and every long stage of a command starts with one, after the
//! command has checked its arguments: a refused command prints none.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// What starts each stage line printed where stderr is not a terminal.
pub const STAGE_PREFIX: &str = "[encint] ";

/// A stage of long work: a spinner on a terminal, else one line per message.
#[derive(Debug)]
pub struct Stage {
    bar: ProgressBar,
    /// Whether stderr is not a terminal (then each message is a plain line).
    plain: bool,
}

/// Starts a stage named `msg`: a spinner on a terminal, else the line `[encint] msg`.
pub fn spinner(msg: &str) -> Stage {
    let plain = !std::io::stderr().is_terminal();
    if plain {
        eprintln!("{STAGE_PREFIX}{msg}");
        return Stage {
            bar: ProgressBar::hidden(),
            plain,
        };
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").expect("valid template"),
    );
    bar.set_message(msg.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    Stage { bar, plain }
}

/// Runs `work` as a stage named `msg` (see [`spinner`]); the spinner is cleared once the
/// work has succeeded, and an error is passed on as it is.
pub fn staged<T, E>(msg: &str, work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let pb = spinner(msg);
    let done = work()?;
    pb.finish_and_clear();
    Ok(done)
}

impl Stage {
    /// The next stage under the same spinner (a new line where stderr is not a terminal).
    pub fn set_message(&self, msg: impl Into<String>) {
        let msg = msg.into();
        if self.plain {
            eprintln!("{STAGE_PREFIX}{msg}");
        }
        self.bar.set_message(msg);
    }

    /// Ends the stage (the spinner disappears).
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}
