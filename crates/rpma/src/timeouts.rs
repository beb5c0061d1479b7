//! How long a connection waits: for each step of its set-up, and for a
//! silent peer before it gives up.
//!
//! The C library leaves the queue pair's local ACK timeout to librdmacm,
//! which on RoCE (rxe) lets an unanswered request wait forever: a peer that
//! loses power or falls off the network is never reported. Every connection
//! of ours sets the timeout explicitly and asks for a retry count of 6
//! instead of the C library's 7 (which rxe reads as "retry forever"), so
//! such a peer is found after `(retry_count + 1) × 4.096 µs × 2^exponent`:
//! with the default exponent 17 (about 0.54 s), about 3.8 s. A healthy
//! connection never waits that long for an acknowledgement, and a shorter
//! break is bridged by the retransmissions.

use std::ffi::CStr;

/// Default timeout of each step of a connection set-up (address and route
/// resolution), in milliseconds.
pub const DEFAULT_TIMEOUT_MS: i32 = 1000;

/// The exponent of the local ACK timeout (4.096 µs × 2^17 ≈ 0.54 s).
pub(crate) const DEFAULT_ACK_TIMEOUT: u8 = 17;
/// The largest value the 5-bit fields of a queue pair (the ACK timeout
/// exponent, the RNR timer code) can hold.
const MAX_FIVE_BITS: u8 = 31;

/// The ACK timeout exponent a peer's connections use: `RPMA_ACK_TIMEOUT`
/// from the environment (1..=31, or 0 for the C library's behaviour: no
/// timeout set, and its retry count), the default otherwise, including for
/// a value that is not such a number.
pub(crate) fn ack_timeout_from_env() -> u8 {
    five_bits_from_env(c"RPMA_ACK_TIMEOUT", DEFAULT_ACK_TIMEOUT)
}

/// A 5-bit queue pair field from the environment variable `var` (0..=31),
/// or `default` when it is unset or not such a number.
fn five_bits_from_env(var: &CStr, default: u8) -> u8 {
    crate::env::with_var(var, |v| {
        v.and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|v| v.trim().parse::<u8>().ok())
            .filter(|&v| v <= MAX_FIVE_BITS)
            .unwrap_or(default)
    })
}

/// The receiver-not-ready timer a connection's queue pair asks its peer to
/// wait before sending again, in the 5-bit code of the InfiniBand
/// specification: 12 is 0.64 ms. rdma_cm leaves it at 0, which means the
/// longest wait, 655.36 ms: every send that finds no receive posted then
/// stalls the whole send queue behind it for that long.
pub(crate) const DEFAULT_MIN_RNR_TIMER: u8 = 12;

/// The receiver-not-ready timer code a peer's connections use:
/// `RPMA_MIN_RNR_TIMER` from the environment (1..=31, or 0 for the C
/// library's behaviour: rdma_cm's value left as it is), the default
/// otherwise, including for a value that is not such a number.
pub(crate) fn min_rnr_timer_from_env() -> u8 {
    five_bits_from_env(c"RPMA_MIN_RNR_TIMER", DEFAULT_MIN_RNR_TIMER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exponent_comes_from_the_environment_or_the_default() {
        // One test touches the variable, so no other test sees it change.
        std::env::remove_var("RPMA_ACK_TIMEOUT");
        assert_eq!(ack_timeout_from_env(), DEFAULT_ACK_TIMEOUT);
        for (value, want) in [
            ("0", 0),
            ("14", 14),
            (" 31 ", 31),
            ("32", 17),
            ("-1", 17),
            ("x", 17),
        ] {
            std::env::set_var("RPMA_ACK_TIMEOUT", value);
            assert_eq!(ack_timeout_from_env(), want, "RPMA_ACK_TIMEOUT={value:?}");
        }
        std::env::remove_var("RPMA_ACK_TIMEOUT");
    }

    #[test]
    fn the_rnr_timer_comes_from_the_environment_or_the_default() {
        std::env::remove_var("RPMA_MIN_RNR_TIMER");
        assert_eq!(min_rnr_timer_from_env(), DEFAULT_MIN_RNR_TIMER);
        for (value, want) in [
            ("0", 0),
            ("1", 1),
            (" 31 ", 31),
            ("32", 12),
            ("-1", 12),
            ("x", 12),
        ] {
            std::env::set_var("RPMA_MIN_RNR_TIMER", value);
            assert_eq!(
                min_rnr_timer_from_env(),
                want,
                "RPMA_MIN_RNR_TIMER={value:?}"
            );
        }
        std::env::remove_var("RPMA_MIN_RNR_TIMER");
    }
}
