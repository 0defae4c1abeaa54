#![no_main]
//! Format detection plus whichever reader it picks, over arbitrary bytes.

use lethe::data;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    lethe_fuzz::exercise("fuzz.bin", bytes, data::load::<f64>, data::load::<f32>, data::inspect);
});
