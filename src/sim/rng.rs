//! A small deterministic random number generator (SplitMix64).
//!
//! The simulator must give the same traffic for the same seed on every
//! machine and every build, so that a failing test can be replayed exactly;
//! it needs no cryptographic quality, and a dozen lines of our own keep the
//! dependency list short.

/// SplitMix64 (Steele, Lea and Flood, 2014): one 64-bit word of state.
#[derive(Debug, Clone)]
pub(crate) struct Rng {
    state: u64,
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A generator of its own, so that one consumer's draws do not shift
    /// another's.
    pub(crate) fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }

    /// Uniform in `0..n` (`n` > 0), by the multiply-high method.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`; `lo` when the range is empty.
    pub(crate) fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        match (hi - lo).checked_add(1) {
            Some(n) => lo + self.below(n),
            None => self.next_u64(),
        }
    }

    /// True with probability `percent` / 100.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One of `items`, uniformly; `None` when there are none.
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        if items.is_empty() {
            None
        } else {
            Some(items[self.below(items.len() as u64) as usize])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_sequence() {
        // SplitMix64 from seed 0, as published with the algorithm.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn ranges_are_inclusive_and_bounded() {
        let mut r = Rng::new(7);
        let mut seen = [false; 4];
        for _ in 0..1000 {
            let v = r.between(3, 6);
            assert!((3..=6).contains(&v));
            seen[(v - 3) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(r.between(5, 5), 5);
        assert_eq!(r.between(9, 2), 9);
        let _ = r.between(0, u64::MAX);
        assert!(!r.chance(0));
        assert!(r.chance(100));
        assert_eq!(r.pick::<u8>(&[]), None);
    }
}
