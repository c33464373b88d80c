//! The random source of the in-process searches: SplitMix64, small, fast, and the same on
//! every platform, so a seed names the same run everywhere.

/// Random input length per draw, in bytes.
pub const INPUT_BYTES_MAX: usize = 512;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Refill `buf` with 1..=[`INPUT_BYTES_MAX`] random bytes.
    pub fn fill(&mut self, buf: &mut Vec<u8>) {
        let len = self.input_len();
        buf.clear();
        self.extend_to(buf, len);
        buf.truncate(len);
    }

    /// The length of one input, 1..=[`INPUT_BYTES_MAX`].
    pub fn input_len(&mut self) -> usize {
        (self.next_u64() as usize) % INPUT_BYTES_MAX + 1
    }

    /// Append random bytes, eight at a time, until `buf` holds at least `len`.
    pub fn extend_to(&mut self, buf: &mut Vec<u8>, len: usize) {
        while buf.len() < len {
            buf.extend_from_slice(&self.next_u64().to_le_bytes());
        }
    }
}
