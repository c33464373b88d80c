//! Generator diagnostics: which requests the generator gets rejected, by error code,
//! over 1000 generated histories under trunk. Run: `cargo run --example rejections`.
//! Deliberate invalid requests are about 1 in 16; anything else large is a generator gap.
use isrfuzz::check::oracle;
use isrfuzz::{decode, RuleSet};
use std::collections::BTreeMap;
fn main() {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    let mut x = 1u64;
    for _ in 0..1000 {
        let data: Vec<u8> = (0..256)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let h = decode(&data, Default::default());
        let v = oracle::run(&h, &[RuleSet::trunk()], true);
        for (e, s) in h.events.iter().zip(&v.sides[0].steps) {
            if let isrfuzz::model::Outcome::Rejected { error, reason } = s.outcome {
                let k = format!(
                    "{} {} {}",
                    e.to_string().split(' ').next().unwrap(),
                    error.name(),
                    reason
                );
                *counts.entry(k).or_default() += 1;
            }
        }
    }
    for (k, v) in counts {
        println!("{v:6} {k}");
    }
}
