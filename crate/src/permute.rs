//! Seeded, platform-independent random permutations and subsets.
//!
//! Lethe's permutation stream (`RNG_ID` = "chacha8-fy-v1"): a ChaCha8 generator seeded with
//! `ChaCha8Rng::seed_from_u64(seed)` (rand_core's PCG32 seed expansion), on ChaCha stream number
//! `4·subset + purpose` (purpose from [`Stream`]; `subset` numbers the subsets of one analysis, e.g. SDE's
//! 0 = in-training reference, 1 = out-of-training reference, 2 + i = target i), 32-bit outputs only, and a descending Fisher–Yates shuffle whose bounded draws use Lemire's
//! multiply-and-reject method on `u32`. Nothing depends on `usize` width, endianness or floating point, so the same
//! seed gives the same permutations natively, in wasm32 and (uploaded as index buffers) on the GPU.
//!
//! Every shuffle is a fresh uniform permutation of `0..n`. (The SDE paper's Algorithm 1 shuffles S2 cumulatively;
//! each cumulative shuffle is also uniform and independent of the previous ones, so the distributions agree.)

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Identifies the generator and shuffle algorithm, recorded in every report.
pub const RNG_ID: &str = "chacha8-fy-v1";

/// Independent sub-streams of one seed, so that e.g. drawing a random split never shifts the shuffles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Shuffles of the second half (SDE) or of `Y` (HSIC test).
    Shuffles = 0,
    /// The random split of a subset into halves.
    Split = 1,
    /// Drawing target / reference subsets from row pools.
    Subsets = 2,
}

/// A seeded source of uniform random permutations and subsets.
#[derive(Clone, Debug)]
pub struct Permutations {
    rng: ChaCha8Rng,
}

impl Permutations {
    /// The generator for `seed`, purpose `stream`, subset number 0.
    pub fn new(seed: u64, stream: Stream) -> Self {
        Self::for_subset(seed, stream, 0)
    }

    /// The generator for `seed`, purpose `stream` and subset number `subset` (independent streams).
    pub fn for_subset(seed: u64, stream: Stream, subset: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(subset.wrapping_mul(4).wrapping_add(stream as u64));
        Self { rng }
    }

    /// A uniform integer in `0..bound` (`bound ≥ 1`), by Lemire's method: unbiased, 32-bit only.
    fn below(&mut self, bound: u32) -> u32 {
        lemire_below(|| self.rng.next_u32(), bound)
    }

    /// A uniform integer in `0..bound` (`bound ≥ 1`): one draw of a bootstrap resample (issue 23's intervals).
    pub fn index_below(&mut self, bound: u32) -> u32 {
        self.below(bound)
    }

    /// Writes a fresh uniform permutation of `0..out.len()` into `out`.
    ///
    /// Lengths are limited to `u32::MAX` (far beyond any subset Lethe handles; callers validate sizes).
    pub fn fill(&mut self, out: &mut [u32]) {
        for (i, v) in out.iter_mut().enumerate() {
            *v = i as u32;
        }
        for i in (1..out.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            out.swap(i, j);
        }
    }

    /// Appends `count` fresh permutations of `0..n` to `out` (row-major, `count × n`).
    pub fn extend(&mut self, n: usize, count: usize, out: &mut Vec<u32>) {
        let start = out.len();
        out.resize(start + n * count, 0);
        for chunk in out[start..].chunks_exact_mut(n.max(1)) {
            self.fill(chunk);
        }
    }

    /// `k` distinct indices drawn uniformly from `0..n`, in draw order (a partial Fisher–Yates).
    ///
    /// Callers ensure `k ≤ n`; if not, all `n` indices are returned.
    pub fn subset(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut pool: Vec<u32> = (0..n as u32).collect();
        let k = k.min(n);
        for i in 0..k {
            let j = i + self.below((n - i) as u32) as usize;
            pool.swap(i, j);
        }
        pool.truncate(k);
        pool.into_iter().map(|v| v as usize).collect()
    }
}

/// A uniform integer in `0..bound` (`bound ≥ 1`) from a source of 32-bit words, by Lemire's multiply-and-reject
/// method (unbiased): the one draw [`Permutations`] and [`SubStreams`] share.
#[inline(always)]
fn lemire_below(mut next: impl FnMut() -> u32, bound: u32) -> u32 {
    debug_assert!(bound > 0);
    let mut m = u64::from(next()) * u64::from(bound);
    #[allow(clippy::cast_possible_truncation)]
    if (m as u32) < bound {
        let threshold = bound.wrapping_neg() % bound;
        while (m as u32) < threshold {
            m = u64::from(next()) * u64::from(bound);
        }
    }
    #[allow(clippy::cast_possible_truncation)]
    let v = (m >> 32) as u32;
    v
}

/// Many sub-streams of one seed and purpose at once: the words [`Permutations::for_subset`]`(seed, stream, s)`
/// draws, for many `s`, computed as ChaCha8 blocks several sub-streams abreast (one sub-stream per SIMD lane),
/// instead of a generator per sub-stream that seeds itself and computes four blocks where a bootstrap resample
/// reads one or two.
///
/// The same numbers: `ChaCha8Rng` is the ChaCha block function with 4 double rounds on the state (constants,
/// the 8 key words `seed_from_u64(seed)` expands to, the 64-bit block counter, the 64-bit stream number
/// `4·subset + purpose`), its words the blocks 0, 1, 2, … of that state in order. The unit tests check it word for
/// word against `rand_chacha` (several blocks, rejections in Lemire's draw included).
#[derive(Clone, Debug)]
pub struct SubStreams {
    key: [u32; 8],
    purpose: u64,
}

/// "expand 32-byte k".
const CHACHA_CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

impl SubStreams {
    /// The sub-streams of `seed` for purpose `stream`.
    pub fn new(seed: u64, stream: Stream) -> Self {
        let bytes = ChaCha8Rng::seed_from_u64(seed).get_seed();
        let key = std::array::from_fn(|i| {
            u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]])
        });
        Self {
            key,
            purpose: stream as u64,
        }
    }

    fn nonce(&self, subset: u64) -> u64 {
        subset.wrapping_mul(4).wrapping_add(self.purpose)
    }

    /// Block `counter` of sub-stream `subset`: words `16·counter .. 16·counter + 16` of its output.
    pub fn block(&self, subset: u64, counter: u64) -> [u32; 16] {
        let mut out = [[0u32; 16]; 1];
        chacha8_lanes::<1>(self, &[(subset, counter)], &mut out);
        out[0]
    }

    /// `out[k]` = block `jobs[k].1` of sub-stream `jobs[k].0`, for every `k` (`out` at least as long as `jobs`).
    pub fn blocks(&self, jobs: &[(u64, u64)], out: &mut [[u32; 16]]) {
        let out = &mut out[..jobs.len()];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (checked just above).
                unsafe { blocks_avx512(self, jobs, out) };
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { blocks_avx2(self, jobs, out) };
                return;
            }
        }
        blocks_lanes::<4>(self, jobs, out);
    }

    /// Block `counter` of the [`GROUP`] sub-streams `first, first + 1, …, first + 15`, word-major: `out[w][l]` is
    /// word `w` of that block of sub-stream `first + l` (what [`SubStreams::block`]`(first + l, counter)[w]` gives).
    /// Laid out as the SIMD lanes compute it, so nothing is transposed on the way out.
    pub fn group(&self, first: u64, counter: u64, out: &mut [[u32; GROUP]; 16]) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F (checked just above).
                unsafe { group_avx512(self, first, counter, out) };
                return;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { group_avx2(self, first, counter, out) };
                return;
            }
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            group_simd128(self, first, counter, out);
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        for off in (0..GROUP).step_by(4) {
            chacha8_group::<4>(self, first, counter, out, off);
        }
    }

    /// The words of sub-stream `subset` from its start, as [`Permutations::for_subset`] draws them; `pre`: its
    /// first blocks, already computed by [`SubStreams::blocks`] (the rest are computed when read).
    pub fn words<'a>(&'a self, subset: u64, pre: &'a [[u32; 16]]) -> Words<'a> {
        Words {
            streams: self,
            subset,
            pre,
            pos: 0,
            extra: (u64::MAX, [0; 16]),
        }
    }
}

/// The words of one sub-stream (see [`SubStreams::words`]).
pub struct Words<'a> {
    streams: &'a SubStreams,
    subset: u64,
    pre: &'a [[u32; 16]],
    pos: usize,
    /// The last block computed here past `pre`: its number and words.
    extra: (u64, [u32; 16]),
}

impl Words<'_> {
    #[inline(always)]
    fn next_word(&mut self) -> u32 {
        let (b, w) = (self.pos / 16, self.pos % 16);
        self.pos += 1;
        if let Some(block) = self.pre.get(b) {
            return block[w];
        }
        let b = b as u64;
        if self.extra.0 != b {
            self.extra = (b, self.streams.block(self.subset, b));
        }
        self.extra.1[w]
    }

    /// A uniform integer in `0..bound` (`bound ≥ 1`): [`Permutations::index_below`]'s draw.
    #[inline(always)]
    pub fn index_below(&mut self, bound: u32) -> u32 {
        lemire_below(|| self.next_word(), bound)
    }
}

/// ChaCha's quarter round on words `a, b, c, d` of every lane (indexing by lane keeps each step one SIMD operation
/// over the lanes).
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn quarter<const L: usize>(x: &mut [[u32; L]; 16], a: usize, b: usize, c: usize, d: usize) {
    for l in 0..L {
        x[a][l] = x[a][l].wrapping_add(x[b][l]);
        x[d][l] = (x[d][l] ^ x[a][l]).rotate_left(16);
        x[c][l] = x[c][l].wrapping_add(x[d][l]);
        x[b][l] = (x[b][l] ^ x[c][l]).rotate_left(12);
        x[a][l] = x[a][l].wrapping_add(x[b][l]);
        x[d][l] = (x[d][l] ^ x[a][l]).rotate_left(8);
        x[c][l] = x[c][l].wrapping_add(x[d][l]);
        x[b][l] = (x[b][l] ^ x[c][l]).rotate_left(7);
    }
}

/// The first eight words of every lane's ChaCha state (the constants and the key); the counter and nonce words are
/// zero, for the caller to fill.
#[inline(always)]
fn keyed<const L: usize>(s: &SubStreams) -> [[u32; L]; 16] {
    let mut init = [[0u32; L]; 16];
    for (i, c) in CHACHA_CONSTANTS.iter().enumerate() {
        init[i] = [*c; L];
    }
    for (i, k) in s.key.iter().enumerate() {
        init[4 + i] = [*k; L];
    }
    init
}

/// ChaCha8's eight rounds (four double rounds) on every lane of `init`; the block is the result plus `init`.
#[inline(always)]
fn chacha8_rounds<const L: usize>(init: [[u32; L]; 16]) -> [[u32; L]; 16] {
    let mut x = init;
    for _ in 0..4 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    x
}

/// ChaCha8 blocks for up to `L` (sub-stream, block counter) pairs abreast, word `i` of every lane in one array so
/// that each step of the rounds is one SIMD operation over the lanes.
#[inline(always)]
fn chacha8_lanes<const L: usize>(s: &SubStreams, jobs: &[(u64, u64)], out: &mut [[u32; 16]]) {
    let mut init = keyed::<L>(s);
    #[allow(clippy::cast_possible_truncation)]
    for (l, &(subset, counter)) in jobs.iter().enumerate().take(L) {
        let nonce = s.nonce(subset);
        init[12][l] = counter as u32;
        init[13][l] = (counter >> 32) as u32;
        init[14][l] = nonce as u32;
        init[15][l] = (nonce >> 32) as u32;
    }
    let x = chacha8_rounds(init);
    for (l, o) in out.iter_mut().enumerate().take(L.min(jobs.len())) {
        for (i, w) in o.iter_mut().enumerate() {
            *w = x[i][l].wrapping_add(init[i][l]);
        }
    }
}

/// How many sub-streams [`SubStreams::group`] computes at once.
pub const GROUP: usize = 16;

/// [`SubStreams::group`]'s lanes `off .. off + L`: block `counter` of sub-streams `first + off + l`, word-major.
#[inline(always)]
#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128", not(test)), allow(dead_code))]
#[allow(clippy::needless_range_loop)]
fn chacha8_group<const L: usize>(s: &SubStreams, first: u64, counter: u64, out: &mut [[u32; GROUP]; 16], off: usize) {
    let mut init = keyed::<L>(s);
    #[allow(clippy::cast_possible_truncation)]
    {
        init[12] = [counter as u32; L];
        init[13] = [(counter >> 32) as u32; L];
        for l in 0..L {
            let nonce = s.nonce(first.wrapping_add((off + l) as u64));
            init[14][l] = nonce as u32;
            init[15][l] = (nonce >> 32) as u32;
        }
    }
    let x = chacha8_rounds(init);
    for i in 0..16 {
        for l in 0..L {
            out[i][off + l] = x[i][l].wrapping_add(init[i][l]);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn group_avx2(s: &SubStreams, first: u64, counter: u64, out: &mut [[u32; GROUP]; 16]) {
    chacha8_group::<8>(s, first, counter, out, 0);
    chacha8_group::<8>(s, first, counter, out, 8);
}

/// [`chacha8_group`] for all 16 lanes in AVX-512 registers, written out a word (one register) at a time: the generic
/// code's arrays were spilled and its output gathered and scattered by the compiler.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
fn group_avx512(s: &SubStreams, first: u64, counter: u64, out: &mut [[u32; GROUP]; 16]) {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_storeu_si512,
        _mm512_xor_si512,
    };
    let splat = |v: u32| _mm512_set1_epi32(v as i32);
    let (mut lo, mut hi) = ([0u32; GROUP], [0u32; GROUP]);
    for l in 0..GROUP {
        let nonce = s.nonce(first.wrapping_add(l as u64));
        lo[l] = nonce as u32;
        hi[l] = (nonce >> 32) as u32;
    }
    // SAFETY: `lo` and `hi` are 16 u32 each, the 64 bytes an unaligned load reads.
    let (lo, hi) = unsafe {
        (
            _mm512_loadu_si512(lo.as_ptr().cast::<__m512i>()),
            _mm512_loadu_si512(hi.as_ptr().cast::<__m512i>()),
        )
    };
    let k = &s.key;
    let c = &CHACHA_CONSTANTS;
    let init: [__m512i; 16] = [
        splat(c[0]),
        splat(c[1]),
        splat(c[2]),
        splat(c[3]),
        splat(k[0]),
        splat(k[1]),
        splat(k[2]),
        splat(k[3]),
        splat(k[4]),
        splat(k[5]),
        splat(k[6]),
        splat(k[7]),
        splat(counter as u32),
        splat((counter >> 32) as u32),
        lo,
        hi,
    ];
    let mut x = init;
    macro_rules! quarter {
        ($a:expr, $b:expr, $c:expr, $d:expr) => {
            x[$a] = _mm512_add_epi32(x[$a], x[$b]);
            x[$d] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[$d], x[$a]));
            x[$c] = _mm512_add_epi32(x[$c], x[$d]);
            x[$b] = _mm512_rol_epi32::<12>(_mm512_xor_si512(x[$b], x[$c]));
            x[$a] = _mm512_add_epi32(x[$a], x[$b]);
            x[$d] = _mm512_rol_epi32::<8>(_mm512_xor_si512(x[$d], x[$a]));
            x[$c] = _mm512_add_epi32(x[$c], x[$d]);
            x[$b] = _mm512_rol_epi32::<7>(_mm512_xor_si512(x[$b], x[$c]));
        };
    }
    for _ in 0..4 {
        quarter!(0, 4, 8, 12);
        quarter!(1, 5, 9, 13);
        quarter!(2, 6, 10, 14);
        quarter!(3, 7, 11, 15);
        quarter!(0, 5, 10, 15);
        quarter!(1, 6, 11, 12);
        quarter!(2, 7, 8, 13);
        quarter!(3, 4, 9, 14);
    }
    for (o, (w, i)) in out.iter_mut().zip(x.iter().zip(&init)) {
        // SAFETY: `o` is 16 u32, the 64 bytes an unaligned store writes.
        unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast::<__m512i>(), _mm512_add_epi32(*w, *i)) };
    }
}

/// [`chacha8_group`] in wasm SIMD (the page's build has simd128): 4 lanes to a `v128`, the rotations by 16 and 8
/// as byte shuffles, every word stored straight into its row of `out`. The same words as the generic kernel.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(clippy::cast_possible_truncation)]
fn group_simd128(s: &SubStreams, first: u64, counter: u64, out: &mut [[u32; GROUP]; 16]) {
    use std::arch::wasm32::{
        i8x16_shuffle, u32x4, u32x4_add, u32x4_shl, u32x4_shr, u32x4_splat, v128, v128_or, v128_store, v128_xor,
    };
    #[inline(always)]
    fn rol<const L: u32, const R: u32>(v: v128) -> v128 {
        v128_or(u32x4_shl(v, L), u32x4_shr(v, R))
    }
    #[inline(always)]
    fn rol16(v: v128) -> v128 {
        i8x16_shuffle::<2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13>(v, v)
    }
    #[inline(always)]
    fn rol8(v: v128) -> v128 {
        i8x16_shuffle::<3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14>(v, v)
    }
    let k = &s.key;
    let c = &CHACHA_CONSTANTS;
    for off in (0..GROUP).step_by(4) {
        let nonce = |l: usize| s.nonce(first.wrapping_add((off + l) as u64));
        let (n0, n1, n2, n3) = (nonce(0), nonce(1), nonce(2), nonce(3));
        let init: [v128; 16] = [
            u32x4_splat(c[0]),
            u32x4_splat(c[1]),
            u32x4_splat(c[2]),
            u32x4_splat(c[3]),
            u32x4_splat(k[0]),
            u32x4_splat(k[1]),
            u32x4_splat(k[2]),
            u32x4_splat(k[3]),
            u32x4_splat(k[4]),
            u32x4_splat(k[5]),
            u32x4_splat(k[6]),
            u32x4_splat(k[7]),
            u32x4_splat(counter as u32),
            u32x4_splat((counter >> 32) as u32),
            u32x4(n0 as u32, n1 as u32, n2 as u32, n3 as u32),
            u32x4(
                (n0 >> 32) as u32,
                (n1 >> 32) as u32,
                (n2 >> 32) as u32,
                (n3 >> 32) as u32,
            ),
        ];
        let mut x = init;
        macro_rules! quarter {
            ($a:expr, $b:expr, $c:expr, $d:expr) => {
                x[$a] = u32x4_add(x[$a], x[$b]);
                x[$d] = rol16(v128_xor(x[$d], x[$a]));
                x[$c] = u32x4_add(x[$c], x[$d]);
                x[$b] = rol::<12, 20>(v128_xor(x[$b], x[$c]));
                x[$a] = u32x4_add(x[$a], x[$b]);
                x[$d] = rol8(v128_xor(x[$d], x[$a]));
                x[$c] = u32x4_add(x[$c], x[$d]);
                x[$b] = rol::<7, 25>(v128_xor(x[$b], x[$c]));
            };
        }
        for _ in 0..4 {
            quarter!(0, 4, 8, 12);
            quarter!(1, 5, 9, 13);
            quarter!(2, 6, 10, 14);
            quarter!(3, 7, 11, 15);
            quarter!(0, 5, 10, 15);
            quarter!(1, 6, 11, 12);
            quarter!(2, 7, 8, 13);
            quarter!(3, 4, 9, 14);
        }
        for (o, (w, i)) in out.iter_mut().zip(x.iter().zip(&init)) {
            // SAFETY: `o[off..off + 4]` is 4 u32 (off ≤ 12), the 16 bytes a store writes; wasm has no alignment rule.
            unsafe { v128_store(o.as_mut_ptr().add(off).cast::<v128>(), u32x4_add(*w, *i)) };
        }
    }
}

#[inline(always)]
fn blocks_lanes<const L: usize>(s: &SubStreams, jobs: &[(u64, u64)], out: &mut [[u32; 16]]) {
    for (j, o) in jobs.chunks(L).zip(out.chunks_mut(L)) {
        chacha8_lanes::<L>(s, j, o);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blocks_avx2(s: &SubStreams, jobs: &[(u64, u64)], out: &mut [[u32; 16]]) {
    blocks_lanes::<8>(s, jobs, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn blocks_avx512(s: &SubStreams, jobs: &[(u64, u64)], out: &mut [[u32; 16]]) {
    blocks_lanes::<16>(s, jobs, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_permutations_and_seeded() {
        let mut a = Permutations::new(7, Stream::Shuffles);
        let mut b = Permutations::new(7, Stream::Shuffles);
        let mut pa = Vec::new();
        let mut pb = Vec::new();
        a.extend(50, 20, &mut pa);
        b.extend(50, 20, &mut pb);
        assert_eq!(pa, pb);
        for p in pa.chunks(50) {
            let mut s = p.to_vec();
            s.sort_unstable();
            assert_eq!(s, (0..50).collect::<Vec<u32>>());
        }
        let mut c = Permutations::new(7, Stream::Split);
        let mut pc = vec![0u32; 50];
        c.fill(&mut pc);
        assert_ne!(&pc[..], &pa[..50], "streams are independent");
    }

    /// Pins the stream: these values must be identical on every platform (the wasm tests check the same list).
    #[test]
    fn known_answer_seed_42() {
        let mut p = Permutations::new(42, Stream::Shuffles);
        let mut out = vec![0u32; 10];
        p.fill(&mut out);
        assert_eq!(out, KNOWN_SEED_42_N10);
    }
    pub(crate) const KNOWN_SEED_42_N10: [u32; 10] = [0, 5, 3, 7, 9, 4, 8, 1, 6, 2];

    #[test]
    fn uniform_enough() {
        // Position of element 0 after shuffling n = 4, 40k times: each of 4 positions ~ 10k (chi-square, 3 dof).
        let mut p = Permutations::new(1, Stream::Shuffles);
        let mut counts = [0f64; 4];
        let mut out = [0u32; 4];
        for _ in 0..40_000 {
            p.fill(&mut out);
            let pos = out.iter().position(|&v| v == 0).unwrap_or(0);
            counts[pos] += 1.0;
        }
        let chi2: f64 = counts.iter().map(|c| (c - 10_000.0).powi(2) / 10_000.0).sum();
        assert!(chi2 < 16.3, "chi2 = {chi2} (p < 0.001 at 3 dof)");
    }

    /// `SubStreams` gives the words `Permutations::for_subset` draws, word for word: blocks computed abreast
    /// (every lane width the dispatch picks, a ragged last group) or one at a time past the precomputed ones,
    /// across `rand_chacha`'s four-block buffers, with bounds that make Lemire's draw reject often.
    #[test]
    fn sub_streams_draw_what_permutations_draws() {
        for (seed, stream) in [
            (0u64, Stream::Split),
            (5, Stream::Shuffles),
            (u64::MAX, Stream::Subsets),
        ] {
            let subs = SubStreams::new(seed, stream);
            let subsets: Vec<u64> = (0..37).chain([1 << 33, u64::MAX / 3, u64::MAX]).collect();
            for pre_blocks in [0usize, 1, 2, 5] {
                let jobs: Vec<(u64, u64)> = subsets
                    .iter()
                    .flat_map(|&s| (0..pre_blocks as u64).map(move |c| (s, c)))
                    .collect();
                let mut blocks = vec![[0u32; 16]; jobs.len()];
                subs.blocks(&jobs, &mut blocks);
                for (k, &subset) in subsets.iter().enumerate() {
                    let mut want = Permutations::for_subset(seed, stream, subset);
                    let mut got = subs.words(subset, &blocks[k * pre_blocks..(k + 1) * pre_blocks]);
                    for i in 0..300u32 {
                        let bound = match i % 4 {
                            0 => 10,
                            1 => 0xC000_0001,
                            2 => u32::MAX,
                            _ => 1 + i,
                        };
                        assert_eq!(
                            got.index_below(bound),
                            want.index_below(bound),
                            "seed {seed} subset {subset} draw {i} bound {bound} ({pre_blocks} blocks ahead)"
                        );
                    }
                }
            }
        }
    }

    /// `SubStreams::group` gives, word-major, the blocks `SubStreams::block` gives one by one (so the words
    /// `Permutations::for_subset` draws, by the test above): groups whose stream numbers cross 2^32 (word 15 of
    /// the nonce differs between lanes) and wrap at 2^64, counters past 2^32; and the generic 4-lane kernel (wasm
    /// without simd128), called directly. The page's `group_simd128` is checked in wasm: its compare reports equal
    /// the generic kernel's byte for byte (BENCHMARKS.md, compare's fourth pass) and the CLI's (browser specs).
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn groups_are_the_blocks_word_major() {
        for (seed, stream) in [(0u64, Stream::Split), (9, Stream::Shuffles)] {
            let subs = SubStreams::new(seed, stream);
            for first in [0u64, 16, 1 << 30, (1 << 30) - 7, u64::MAX - 5] {
                for counter in [0u64, 1, 3, 1 << 32] {
                    let mut got = [[0u32; GROUP]; 16];
                    subs.group(first, counter, &mut got);
                    let mut four = [[0u32; GROUP]; 16];
                    for off in (0..GROUP).step_by(4) {
                        chacha8_group::<4>(&subs, first, counter, &mut four, off);
                    }
                    assert_eq!(got, four, "first {first} counter {counter}");
                    for l in 0..GROUP {
                        let want = subs.block(first.wrapping_add(l as u64), counter);
                        for w in 0..16 {
                            assert_eq!(got[w][l], want[w], "first {first} counter {counter} lane {l} word {w}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn subsets_are_distinct() {
        let mut p = Permutations::new(3, Stream::Subsets);
        let s = p.subset(100, 30);
        let mut t = s.clone();
        t.sort_unstable();
        t.dedup();
        assert_eq!(t.len(), 30);
        assert!(s.iter().all(|&i| i < 100));
        assert_eq!(p.subset(5, 9).len(), 5);
    }
}
