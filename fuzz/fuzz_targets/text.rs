#![no_main]
//! The text reader over arbitrary bytes.

use lethe::data::text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    lethe_fuzz::exercise("fuzz.csv", bytes, text::load::<f64>, text::load::<f32>, text::inspect);
});
