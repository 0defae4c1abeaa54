#![no_main]
//! The npz reader over arbitrary bytes.

use lethe::data::npz;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    lethe_fuzz::exercise("fuzz.npz", bytes, npz::load::<f64>, npz::load::<f32>, npz::inspect);
});
