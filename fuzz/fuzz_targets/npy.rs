#![no_main]
//! The npy reader over arbitrary bytes.

use lethe::data::npy;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    lethe_fuzz::exercise("fuzz.npy", bytes, npy::load::<f64>, npy::load::<f32>, npy::inspect);
});
