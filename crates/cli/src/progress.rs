//! Progress on stderr: a spinner while long work runs.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner on stderr while long work runs (hidden when stderr is not a terminal).
pub fn spinner(msg: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").expect("valid template"),
    );
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}
