//! systemd's notification protocol (`Type=notify`, `WatchdogSec=`), through
//! the `sd-notify` crate. Outside systemd (no `NOTIFY_SOCKET`) every call
//! does nothing.

use std::time::Duration;

use sd_notify::NotifyState;

/// Startup is finished (tables rebuilt, devices being opened).
pub fn ready(status: &str) {
    let _ = sd_notify::notify(&[NotifyState::Ready, NotifyState::Status(status)]);
}

pub fn stopping() {
    let _ = sd_notify::notify(&[NotifyState::Stopping]);
}

/// How often to ping the watchdog: half the period systemd set, or `None`
/// when it set none.
pub fn watchdog_interval() -> Option<Duration> {
    sd_notify::watchdog_enabled().map(|d| d / 2)
}

/// The main loop is alive. Sent only from the core loop, so that a loop
/// that hangs stops the pings and systemd restarts the daemon.
pub fn watchdog() {
    let _ = sd_notify::notify(&[NotifyState::Watchdog]);
}
