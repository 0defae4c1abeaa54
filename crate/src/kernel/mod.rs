//! Gaussian RBF kernel matrices, bandwidth rules and centring.
//!
//! For rows `x_i ∈ ℝ^d` the kernel is `k(x, x') = exp(−‖x − x'‖² / (2σ²))` (SDE paper Eq. 4). Squared distances
//! come from the Gram matrix of the column-centred data, `‖x_i − x_j‖² = g_ii + g_jj − 2 g_ij`, clamped at 0:
//! centring the features first keeps the cancellation in that form small (docs/performance.md), and the Gram matrix is
//! computed once for the upper triangle with packed panels and mirrored.
//!
//! Centring a kernel is `Kc = H K H`, `H = I − 11ᵀ/n`, i.e. `Kc_ij = K_ij − r_i − r_j + g` with row means `r`
//! (K is symmetric) and grand mean `g`.
//!
//! Bandwidths ([`Bandwidth`]): `sqrt(dim)` (the SDE paper's default; `dim` = number of columns), the median
//! heuristic (median Euclidean distance over distinct pairs `i < j`, as `numpy.median` — the mean of the two middle
//! values for an even count — falling back to 1.0 when that median is 0, e.g. constant rows), or a fixed σ > 0.
//!
//! The code is generic over the storage type ([`Real`]: `f64` for the reference path, `f32` for the fast path and
//! as the GPU's reference in tolerance tests); means and totals are always accumulated in `f64`.

use std::ops::{Add, AddAssign, Mul, Sub};

use serde::{Deserialize, Serialize};

use crate::data::{Columns, MatrixRef, RowsOf, Scalar};
use crate::error::{Error, Result};

mod exp;
mod gram;

pub use exp::{exp_f32, exp_scaled_f32};
pub use gram::GramAcc;
#[doc(hidden)]
pub use gram::{GramPath, gram_f32_on};

/// The upper triangle (with the diagonal) of `X Xᵀ` for row-major `x` (`n × d`), as a row-major `n × n` matrix
/// that is 0 below the diagonal.
pub fn gram<T: Real>(x: &[T], n: usize, d: usize) -> Vec<T> {
    let mut acc = GramAcc::new(n);
    T::gram_add(&mut acc, x, d);
    acc.finish()
}

/// Storage type of kernel matrices: `f32` or `f64`.
pub trait Real:
    Scalar + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + AddAssign + PartialOrd + gram::GramScalar
{
    const ZERO: Self;
    /// `exp` as used for kernel entries: `f64::exp` for the f64 reference, [`exp_f32`] for f32.
    fn kernel_exp(self) -> Self;
    /// Adds the columns `x` (row-major `n × w`, `n` the sum's rows) to a Gram sum, with the widest SIMD available.
    fn gram_add(acc: &mut GramAcc<Self>, x: &[Self], w: usize);
    /// `v ← exp(v·scale)` for kernel entries: the product in f64, rounded once to `Self`, then [`Real::kernel_exp`]
    /// (the relaxed-SIMD wasm build's f32 path fuses the exponential's multiply-adds: [`exp::exp_scaled_f32`]).
    #[inline]
    fn exp_scaled(v: &mut [Self], scale: f64) {
        for v in v {
            *v = Self::from_f64(v.to_f64() * scale).kernel_exp();
        }
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    #[inline]
    fn kernel_exp(self) -> Self {
        f64::exp(self)
    }
    fn gram_add(acc: &mut GramAcc<Self>, x: &[Self], w: usize) {
        gram::add_f64(acc, x, w);
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    #[inline]
    fn kernel_exp(self) -> Self {
        exp_f32(self)
    }
    fn gram_add(acc: &mut GramAcc<Self>, x: &[Self], w: usize) {
        gram::add_f32(acc, x, w);
    }
    #[inline]
    fn exp_scaled(v: &mut [Self], scale: f64) {
        exp::exp_scaled_f32(v, scale);
    }
}

/// How the RBF bandwidth σ is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bandwidth {
    /// σ = sqrt(number of columns) — the SDE paper's default.
    #[default]
    SqrtDim,
    /// σ = median pairwise Euclidean distance over distinct pairs (1.0 if that median is 0).
    Median,
    /// A given σ > 0.
    Fixed(f64),
}

impl std::str::FromStr for Bandwidth {
    type Err = Error;
    /// Parses `sqrt_dim` (or `sqrt-dim`), `median`, or a positive number.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "sqrt_dim" | "sqrt-dim" | "sqrtdim" => Ok(Self::SqrtDim),
            "median" => Ok(Self::Median),
            _ => match s.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(Self::Fixed(v)),
                _ => Err(Error::param("sigma", s, "sqrt_dim, median, or a positive number")),
            },
        }
    }
}

impl std::fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SqrtDim => f.write_str("sqrt_dim"),
            Self::Median => f.write_str("median"),
            Self::Fixed(v) => write!(f, "{v}"),
        }
    }
}

impl Bandwidth {
    /// Checks a fixed σ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a non-finite or non-positive fixed σ.
    pub fn validate(self) -> Result<Self> {
        match self {
            Self::Fixed(v) if !(v.is_finite() && v > 0.0) => Err(Error::param("sigma", v, "a positive finite number")),
            b => Ok(b),
        }
    }
}

/// Summary statistics of a kernel matrix, in f64 (used for diagnostics and the exact shuffle moments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct KernelStats {
    /// Number of rows.
    pub n: usize,
    /// σ used.
    pub sigma: f64,
    /// Mean of all n² entries of K.
    pub mean_all: f64,
    /// Mean of the n(n−1) off-diagonal entries of K (NaN for n = 1).
    pub mean_offdiag: f64,
}

/// Sums of one `h × h` matrix that the exact permutation moments of HSIC need (all O(h²) to compute; see
/// `sde::moments`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct MatrixSums {
    pub h: usize,
    /// `Σ_ij A_ij`
    pub total: f64,
    /// `Σ_i A_ii`
    pub trace: f64,
    /// `Σ_i r_i²`, `r` the row sums.
    pub row_sq: f64,
    /// `Σ_i c_i²`, `c` the column sums.
    pub col_sq: f64,
    /// `Σ_i r_i c_i`
    pub row_col: f64,
    /// `Σ_i A_ii r_i`
    pub diag_row: f64,
    /// `Σ_i A_ii c_i`
    pub diag_col: f64,
    /// `Σ_i A_ii²`
    pub diag_sq: f64,
    /// `Σ_ij A_ij²`
    pub sq: f64,
    /// `Σ_ij A_ij A_ji`
    pub sq_transpose: f64,
}

impl MatrixSums {
    /// The sums of a row-major `h × h` matrix, accumulated in f64.
    pub fn of<T: Scalar>(a: &[T], h: usize) -> Self {
        let mut rows = vec![0f64; h];
        let mut cols = vec![0f64; h];
        let (mut sq, mut sq_t) = (0f64, 0f64);
        for i in 0..h {
            let row = &a[i * h..(i + 1) * h];
            let mut r = 0f64;
            for (j, &v) in row.iter().enumerate() {
                let v = v.to_f64();
                r += v;
                cols[j] += v;
                sq += v * v;
                sq_t += v * a[j * h + i].to_f64();
            }
            rows[i] = r;
        }
        let diag: Vec<f64> = (0..h).map(|i| a[i * h + i].to_f64()).collect();
        Self::from_parts(h, &rows, &cols, &diag, sq, sq_t)
    }

    /// The sums of a symmetric row-major `h × h` matrix (kernels are): one contiguous pass, no transposed reads.
    pub fn of_symmetric<T: Scalar>(a: &[T], h: usize) -> Self {
        let mut rows = vec![0f64; h];
        let mut sq = 0f64;
        for (i, r) in rows.iter_mut().enumerate() {
            // Four partial sums each (a fixed order, the same on every target): one dependent f64 add per entry
            // made this pass latency-bound.
            let row = &a[i * h..(i + 1) * h];
            let (quads, rest) = row.as_chunks::<4>();
            let (mut s, mut q) = ([0f64; 4], [0f64; 4]);
            for c in quads {
                for l in 0..4 {
                    let v = c[l].to_f64();
                    s[l] += v;
                    q[l] += v * v;
                }
            }
            let (mut rs, mut qs) = ((s[0] + s[1]) + (s[2] + s[3]), (q[0] + q[1]) + (q[2] + q[3]));
            for &v in rest {
                let v = v.to_f64();
                rs += v;
                qs += v * v;
            }
            *r = rs;
            sq += qs;
        }
        let diag: Vec<f64> = (0..h).map(|i| a[i * h + i].to_f64()).collect();
        Self::from_parts(h, &rows, &rows, &diag, sq, sq)
    }

    fn from_parts(h: usize, rows: &[f64], cols: &[f64], diag: &[f64], sq: f64, sq_t: f64) -> Self {
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
        Self {
            h,
            total: rows.iter().sum(),
            trace: diag.iter().sum(),
            row_sq: dot(rows, rows),
            col_sq: dot(cols, cols),
            row_col: dot(rows, cols),
            diag_row: dot(diag, rows),
            diag_col: dot(diag, cols),
            diag_sq: dot(diag, diag),
            sq,
            sq_transpose: sq_t,
        }
    }
}

/// Row-major `n × n` kernel matrix with its statistics.
#[derive(Clone, Debug)]
pub struct Kernel<T> {
    pub n: usize,
    pub values: Vec<T>,
    pub stats: KernelStats,
    /// Mean of each row (f64 sums of the stored entries), for centring ([`center_kernel_with`]).
    pub row_means: Vec<f64>,
}

/// Column-centred copy of `x` in storage type `T` (means computed in f64).
pub fn center_columns<S: Scalar, T: Real>(x: MatrixRef<'_, S>) -> Vec<T> {
    let mut out = Vec::new();
    center_panel(x.as_slice(), x.rows(), x.cols(), &mut out);
    out
}

/// Replaces `out` with the column-centred row-major `n × w` panel `x`: each column's mean over the `n` rows,
/// summed in f64 in row order, subtracted in f64 and rounded once to `T`. A column's result depends only on that
/// column, so centring panels of columns gives the same bits as centring all columns at once.
pub fn center_panel<S: Scalar, T: Real>(x: &[S], n: usize, w: usize, out: &mut Vec<T>) {
    let mut mean = vec![0f64; w];
    for row in x.chunks_exact(w.max(1)).take(n) {
        for (m, v) in mean.iter_mut().zip(row) {
            *m += v.to_f64();
        }
    }
    let inv = 1.0 / n.max(1) as f64;
    for m in &mut mean {
        *m *= inv;
    }
    out.clear();
    for row in x.chunks_exact(w.max(1)).take(n) {
        out.extend(row.iter().zip(&mean).map(|(v, m)| T::from_f64(v.to_f64() - m)));
    }
}

/// Squared Euclidean distances between the rows of the column-centred `xc` (`n × d`, row-major), as a full
/// symmetric `n × n` matrix with a zero diagonal. Negative round-off is clamped to 0.
pub fn sq_dists<T: Real>(xc: &[T], n: usize, d: usize) -> Vec<T> {
    let mut out = sq_dists_upper(xc, n, d);
    mirror_upper(&mut out, n);
    out
}

/// [`sq_dists`] in the upper triangle only (0 on and below the diagonal): what the kernel passes read.
fn sq_dists_upper<T: Real>(xc: &[T], n: usize, d: usize) -> Vec<T> {
    let mut g = gram(xc, n, d);
    dists_from_gram(&mut g, n);
    g
}

/// Turns the upper triangle of a Gram matrix of centred rows into squared distances in place,
/// `‖x_i − x_j‖² = g_ii + g_jj − 2 g_ij` clamped at 0, with zeros on the diagonal.
fn dists_from_gram<T: Real>(g: &mut [T], n: usize) {
    let norms: Vec<T> = (0..n).map(|i| g[i * n + i]).collect();
    for i in 0..n {
        let ni = norms[i];
        let row = &mut g[i * n + i..(i + 1) * n];
        row[0] = T::ZERO;
        for (v, &nj) in row[1..].iter_mut().zip(&norms[i + 1..]) {
            let two_g = *v + *v;
            let d2 = ni + nj - two_g;
            // Clamp round-off below 0 (and NaN, which cannot arise from finite input) to 0.
            *v = if d2 > T::ZERO { d2 } else { T::ZERO };
        }
    }
}

/// Bytes of panel data a kernel holds while it reads its rows by columns ([`rbf_columns`]).
const PANEL_BYTES: usize = 4 << 20;

/// Columns per panel for `n` rows: a multiple of the Gram's packed panel width (so panels sum in the order of one
/// pass over all columns), about [`PANEL_BYTES`] of `S` and `T` together, all `d` columns when they fit.
pub fn panel_width<S, T>(n: usize, d: usize) -> usize {
    let per_col = n.max(1) * (size_of::<S>() + size_of::<T>());
    let fit = (PANEL_BYTES / per_col / gram::KC).max(1) * gram::KC;
    fit.min(d)
}

/// Bytes [`rbf_columns`] holds at its peak for `n` rows of `d` columns of `in_bytes`-byte values, building a
/// kernel of `elem`-byte values (8 for f64, 4 for f32): the padded Gram matrix that becomes the kernel, the median
/// heuristic's copy of the `n(n−1)/2` distances ([`Bandwidth::Median`]), the column panels and the row sums.
/// Saturates instead of overflowing, so absurd sizes are simply too large.
pub fn rbf_bytes(n: usize, d: usize, in_bytes: usize, elem: usize, bw: Bandwidth) -> u64 {
    use crate::check::mul;
    let n_pad = gram::padded(n);
    let gram = mul(n_pad, n_pad).saturating_mul(elem as u64);
    let median = match bw {
        Bandwidth::Median => (mul(n, n.saturating_sub(1)) / 2).saturating_mul(8),
        _ => 0,
    };
    let per_col = n.max(1).saturating_mul(in_bytes + elem);
    let width = ((PANEL_BYTES / per_col / gram::KC).max(1) * gram::KC).min(d);
    let panels = mul(n, width)
        .saturating_mul((in_bytes + elem) as u64)
        .saturating_add(mul(n_pad, gram::KC).saturating_mul(elem as u64));
    gram.saturating_add(median)
        .saturating_add(panels)
        .saturating_add(mul(n, 40))
}

/// Steps of work of [`rbf_columns`] for `n` rows of `d` columns, about a nanosecond each on one core: the Gram
/// matrix's `n²d/2` multiply-adds run vectorised, about 32 to a step, the `n²/2` exponentials and the median about
/// one each, and a fixed cost per kernel (its buffers and panels: a few microseconds).
pub fn rbf_steps(n: usize, d: usize) -> u64 {
    (crate::check::mul(n, n) / 2)
        .saturating_mul(d as u64 / 32 + 2)
        .saturating_add(4096)
}

/// Copies the upper triangle of a row-major `n × n` matrix onto its lower triangle, in cache-sized blocks.
fn mirror_upper<T: Copy>(a: &mut [T], n: usize) {
    const B: usize = 32;
    for i0 in (0..n).step_by(B) {
        for j0 in (0..=i0).step_by(B) {
            for i in i0..(i0 + B).min(n) {
                for j in j0..(j0 + B).min(i) {
                    a[i * n + j] = a[j * n + i];
                }
            }
        }
    }
}

/// The median heuristic from a squared-distance matrix: median of `sqrt(d2_ij)` over `i < j`
/// (numpy.median semantics), or 1.0 when it is 0 or there are no pairs.
pub fn median_heuristic<T: Real>(d2: &[T], n: usize) -> f64 {
    let mut dist: Vec<f64> = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for i in 0..n {
        dist.extend(d2[i * n + i + 1..(i + 1) * n].iter().map(|v| v.to_f64().sqrt()));
    }
    let m = median_in_place(&mut dist);
    if m > 0.0 && m.is_finite() { m } else { 1.0 }
}

/// numpy.median of finite values (mean of the two middle values for an even count); 0.0 when empty.
pub fn median_in_place(v: &mut [f64]) -> f64 {
    let len = v.len();
    if len == 0 {
        return 0.0;
    }
    let mid = len / 2;
    let (_, &mut hi, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
    if len % 2 == 1 {
        hi
    } else {
        let lo = v[..mid].iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // numpy takes np.mean of the two middle values: (lo + hi) / 2.
        (lo + hi) / 2.0
    }
}

/// Resolves a [`Bandwidth`] for data with `d` columns, given its squared distances (only read for `Median`).
pub fn resolve_sigma<T: Real>(bw: Bandwidth, d: usize, d2: &[T], n: usize) -> f64 {
    match bw {
        Bandwidth::SqrtDim => (d as f64).sqrt(),
        Bandwidth::Median => median_heuristic(d2, n),
        Bandwidth::Fixed(s) => s,
    }
}

/// RBF kernel of the rows of `x` with the given bandwidth rule: squared distances, σ, then `exp(−d²/(2σ²))`.
///
/// Everything runs on the upper triangle (K is symmetric): the Gram matrix, the distances, the exponential with
/// the kernel's sums taken in the same pass, then one mirroring copy.
///
/// # Errors
/// [`Error::InvalidParameter`] for a bad fixed σ; callers validate `x` itself (see [`crate::check::matrix`]).
pub fn rbf<S: Scalar, T: Real>(x: MatrixRef<'_, S>, bw: Bandwidth) -> Result<Kernel<T>> {
    rbf_columns(&mut RowsOf::all("x", x), bw)
}

/// [`rbf`] of rows read by column panels ([`Columns`]): memory for the `n × n` kernel and one panel of about
/// 4 MB, whatever the number of columns. Gives the same bits as [`rbf`] of the same rows in memory.
///
/// # Errors
/// As [`rbf`], plus the source's read errors.
pub fn rbf_columns<S: Scalar, T: Real>(x: &mut dyn Columns<S>, bw: Bandwidth) -> Result<Kernel<T>> {
    let bw = bw.validate()?;
    let (n, d) = (x.rows(), x.cols());
    // Callers check their whole computation first; this covers a kernel asked for on its own.
    crate::check::Budget::default()
        .add(
            crate::check::Cause::input(x.name()),
            format!("the kernel matrix of {n} rows"),
            rbf_bytes(n, d, size_of::<S>(), size_of::<T>(), bw),
            0,
            "use fewer rows (a kernel grows as rows²)",
        )
        .check()?;
    let mut k = centred_gram::<S, T>(x)?;
    dists_from_gram(&mut k, n);
    let sigma = resolve_sigma(bw, d, &k, n);
    Ok(rbf_from_sq_dists(k, n, sigma))
}

/// The upper triangle of the Gram matrix of the column-centred rows of `x`, read panel by panel.
fn centred_gram<S: Scalar, T: Real>(x: &mut dyn Columns<S>) -> Result<Vec<T>> {
    let (n, d) = (x.rows(), x.cols());
    let width = panel_width::<S, T>(n, d);
    let (mut raw, mut xc) = (Vec::with_capacity(n * width), Vec::with_capacity(n * width));
    let mut acc = GramAcc::new(n);
    let mut start = 0;
    while start < d {
        let w = width.min(d - start);
        x.read(start, w, &mut raw)?;
        center_panel(&raw, n, w, &mut xc);
        T::gram_add(&mut acc, &xc, w);
        start += w;
    }
    Ok(acc.finish())
}

/// `exp(−d²/(2σ²))` of the squared distances in the upper triangle of `k` (in place), mirrored, with the
/// kernel's statistics.
fn rbf_from_sq_dists<T: Real>(mut k: Vec<T>, n: usize, sigma: f64) -> Kernel<T> {
    let scale = -1.0 / (2.0 * sigma * sigma);
    // Row sums of K in f64: row i gets its own upper entries and, through `cols`, the entries above it in column i.
    let mut rows = vec![0f64; n];
    let mut cols = vec![0f64; n];
    let mut off = 0f64;
    // The diagonal: exp(0) = 1 on either path.
    let one = T::from_f64(0.0).kernel_exp();
    for i in 0..n {
        let row = &mut k[i * n + i..(i + 1) * n];
        row[0] = one;
        // The scale is applied in f64 and rounded once, so the f64 path is exactly exp(-d2 / (2 sigma^2)). This loop
        // carries no dependency, so it vectorises; the sums come after it.
        T::exp_scaled(&mut row[1..], scale);
        let r = sum4(&row[1..], &mut cols[i + 1..]);
        off += r;
        rows[i] = r + cols[i] + one.to_f64();
    }
    mirror_upper(&mut k, n);
    // The off-diagonal sum directly, not (total − trace): when every off-diagonal entry is tiny (narrow σ) the
    // difference of two nearly equal totals cancels to exactly 0.
    let (off, diag) = (2.0 * off, n as f64 * one.to_f64());
    let nn = (n * n) as f64;
    let stats = KernelStats {
        n,
        sigma,
        mean_all: (off + diag) / nn,
        mean_offdiag: if n > 1 { off / (nn - n as f64) } else { f64::NAN },
    };
    let row_means = rows.iter().map(|r| r / n as f64).collect();
    Kernel {
        n,
        values: k,
        stats,
        row_means,
    }
}

/// `Σ v` in f64 with four partial sums (a fixed order, the same on every target), adding each `v` to `cols` too.
#[inline]
fn sum4<T: Real>(v: &[T], cols: &mut [f64]) -> f64 {
    let (quads, rest) = v.as_chunks::<4>();
    let (cq, cr) = cols.as_chunks_mut::<4>();
    let mut s = [0f64; 4];
    for (q, c) in quads.iter().zip(cq) {
        for l in 0..4 {
            let e = q[l].to_f64();
            s[l] += e;
            c[l] += e;
        }
    }
    let mut r = (s[0] + s[1]) + (s[2] + s[3]);
    for (e, c) in rest.iter().zip(cr) {
        r += e.to_f64();
        *c += e.to_f64();
    }
    r
}

/// `H K H` of a symmetric `n × n` kernel (row means and grand mean in f64).
pub fn center_kernel<T: Real>(k: &[T], n: usize) -> Vec<T> {
    let means: Vec<f64> = (0..n)
        .map(|i| k[i * n..(i + 1) * n].iter().map(|v| v.to_f64()).sum::<f64>() / n as f64)
        .collect();
    center_kernel_with(k, n, &means)
}

/// `H K H` of a symmetric `n × n` kernel with the given row means (e.g. [`Kernel::row_means`]).
pub fn center_kernel_with<T: Real>(k: &[T], n: usize, means: &[f64]) -> Vec<T> {
    let mut out = k.to_vec();
    center_kernel_in_place(&mut out, n, means);
    out
}

/// [`center_kernel_with`] in place.
pub fn center_kernel_in_place<T: Real>(k: &mut [T], n: usize, means: &[f64]) {
    let grand = means.iter().sum::<f64>() / n as f64;
    for (r, &mi) in k.chunks_exact_mut(n.max(1)).zip(means) {
        for (v, &mj) in r.iter_mut().zip(means) {
            *v = T::from_f64(v.to_f64() - mi - mj + grand);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Matrix;

    fn naive_sq_dists(x: &Matrix, n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] = x.row(i).iter().zip(x.row(j)).map(|(a, b)| (a - b) * (a - b)).sum();
            }
        }
        out
    }

    fn seeded(n: usize, d: usize, seed: u64) -> Matrix {
        let mut s = seed;
        let data = (0..n * d)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0
            })
            .collect();
        Matrix::from_vec(n, d, data).unwrap()
    }

    #[test]
    fn gram_distances_match_naive_for_awkward_shapes() {
        for &(n, d) in &[(1, 1), (2, 3), (5, 1), (7, 300), (9, 513), (13, 257)] {
            let x = seeded(n, d, (n * 31 + d) as u64);
            let xc: Vec<f64> = center_columns(x.view());
            let got = sq_dists(&xc, n, d);
            let want = naive_sq_dists(&x, n);
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() <= 1e-12 * (1.0 + w), "n={n} d={d}: {g} vs {w}");
            }
            let got32 = sq_dists(&center_columns::<f64, f32>(x.view()), n, d);
            for (g, w) in got32.iter().zip(&want) {
                assert!(
                    (f64::from(*g) - w).abs() <= 2e-5 * (1.0 + w),
                    "f32 n={n} d={d}: {g} vs {w}"
                );
            }
        }
    }

    /// The dispatched SIMD Gram (AVX2+FMA here when available) against the portable four-lane path: only the
    /// summation order differs.
    #[test]
    fn simd_gram_matches_portable() {
        for &(n, d) in &[(3, 5), (9, 513), (17, 300), (64, 1000)] {
            let x = seeded(n, d, 11);
            let x64: Vec<f64> = center_columns(x.view());
            let x32: Vec<f32> = center_columns(x.view());
            let (a, b) = (gram(&x64, n, d), gram::gram_portable(&x64, n, d));
            let (c, e) = (gram(&x32, n, d), gram::gram_portable(&x32, n, d));
            for k in 0..n * n {
                assert!((a[k] - b[k]).abs() <= 1e-12 * (1.0 + b[k].abs()), "f64 n={n} d={d}");
                assert!((c[k] - e[k]).abs() <= 1e-4 * (1.0 + e[k].abs()), "f32 n={n} d={d}");
            }
        }
    }

    /// Every f32 SIMD path this machine has (portable, AVX2, AVX-512) against the portable one.
    #[test]
    fn every_f32_gram_path_matches_portable() {
        for &(n, d) in &[(3, 5), (9, 513), (17, 300), (64, 1000)] {
            let x = seeded(n, d, 12);
            let x32: Vec<f32> = center_columns(x.view());
            let want = gram::gram_portable(&x32, n, d);
            for path in [GramPath::Auto, GramPath::Portable, GramPath::Avx2, GramPath::Avx512] {
                let Some(got) = gram_f32_on(path, &x32, n, d) else {
                    continue;
                };
                for k in 0..n * n {
                    assert!(
                        (got[k] - want[k]).abs() <= 1e-4 * (1.0 + want[k].abs()),
                        "{path:?} n={n} d={d}"
                    );
                }
            }
        }
        assert_eq!(gram_f32_on(GramPath::Auto, &[1.0, 2.0], 1, 2), Some(vec![5.0]));
    }

    /// Columns added in panels whose widths are multiples of the packed panel sum to the same bits as one pass;
    /// centring by panels gives the same bits as centring all columns.
    #[test]
    fn panels_sum_to_the_bits_of_one_pass() {
        let (n, d) = (13, 3 * gram::KC + 77);
        let x = seeded(n, d, 5);
        let whole: Vec<f32> = center_columns(x.view());
        let one = gram(&whole, n, d);
        let mut acc = GramAcc::new(n);
        let mut start = 0;
        for w in [gram::KC, 2 * gram::KC, 77] {
            let mut panel: Vec<f64> = Vec::new();
            RowsOf::all("x", x.view()).read(start, w, &mut panel).unwrap();
            let mut xc: Vec<f32> = Vec::new();
            center_panel(&panel, n, w, &mut xc);
            for i in 0..n {
                assert_eq!(
                    xc[i * w..(i + 1) * w],
                    whole[i * d + start..i * d + start + w],
                    "row {i}"
                );
            }
            f32::gram_add(&mut acc, &xc, w);
            start += w;
        }
        assert_eq!(acc.finish(), one);
    }

    #[test]
    fn median_matches_numpy_semantics() {
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_in_place(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        // Constant rows: every distance is 0, so the heuristic falls back to 1.
        let k = vec![0.0f64; 9];
        assert_eq!(median_heuristic(&k, 3), 1.0);
        assert_eq!(median_heuristic(&[0.0f64], 1), 1.0);
    }

    #[test]
    fn centred_kernel_rows_sum_to_zero() {
        let x = seeded(6, 3, 1);
        let k: Kernel<f64> = rbf(x.view(), Bandwidth::SqrtDim).unwrap();
        let kc = center_kernel(&k.values, 6);
        for i in 0..6 {
            assert!(kc[i * 6..(i + 1) * 6].iter().sum::<f64>().abs() < 1e-14);
        }
        assert!((k.stats.mean_offdiag * 30.0 + 6.0 - k.stats.mean_all * 36.0).abs() < 1e-12);
    }

    #[test]
    fn bandwidth_parsing() {
        assert_eq!("median".parse::<Bandwidth>().unwrap(), Bandwidth::Median);
        assert_eq!("2.5".parse::<Bandwidth>().unwrap(), Bandwidth::Fixed(2.5));
        assert!("-1".parse::<Bandwidth>().is_err());
        assert!("nan".parse::<Bandwidth>().is_err());
        assert!(Bandwidth::Fixed(0.0).validate().is_err());
    }
}
