#![no_main]
//! The json reader over arbitrary bytes.

use lethe::data::json;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    lethe_fuzz::exercise("fuzz.json", bytes, json::load::<f64>, json::load::<f32>, json::inspect);
});
