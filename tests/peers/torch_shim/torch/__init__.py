"""A numpy-backed stand-in for the part of torch 1.12.1 (on a CUDA GPU) that the competition's `metric.py` uses.

Lethe's own code, written for `tests/peers/metric_runner.py`: with this directory first on `sys.path`, the authors'
google-deepmind/unlearning_evaluation `metric.py` (commit ffae0ff, "Open-sourcing A"; it ran under torch 1.12.1 per
requirements.txt and launch.py's `pytorch-gpu.1-12` image, on a CUDA GPU) runs unmodified on a machine without torch
or a GPU and computes the numbers it computed there: the *same dtypes and the same rounding* at every step.

It implements exactly what metric.py calls and nothing more: `cat`, `linspace`, `tile`, `from_numpy`, `le`, `eq`,
`logical_and`, `logical_not`, `mean`, `where`, `zeros`, `ones`, `full`, `zeros_like`, `ceil`, `float32`; tensor
methods `.cuda() .detach() .cpu() .numpy() .max() .min() .type(dtype)`, `.shape`, indexing with slices and `None`,
`+ - *` and `> >= <`, `bool()` and `int()` of one-element tensors. Anything else raises (AttributeError, TypeError
or NotImplementedError) instead of guessing. The semantics that decide metric.py's numbers:

* dtypes follow torch's type promotion (`c10::result_type`): dimensioned tensors outrank 0-d tensors, which
  outrank Python scalars, except where a lower-priority operand is of a higher category (bool < integer <
  floating); a Python float then counts as the default dtype float32. So `2 * ones(T)` is float32, a 0-d float64
  tensor times 100 stays float64, and float64 confidences `>=` float32 thresholds compare in float64 (the float32
  values are widened exactly). Operands are cast to the result dtype and combined by numpy in that dtype, which
  rounds as the CUDA kernels do (one IEEE operation per element; torch passes CPU scalars to CUDA kernels in the
  op's compute type, float for float32).
* `torch.linspace(start, end, steps)` with 0-d float64 tensors and no `dtype=`: the result has torch's *default*
  dtype, float32 (`linspace_logspace_infer_options` falls back to `get_default_dtype()`), computed on the CPU (no
  `device=`) and only then moved to the GPU. The start and end reach the kernel as doubles (`Scalar`) and are
  rounded to float once. `torch_linspace_f32` below reproduces torch 1.12.1's CPU kernel
  (`aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp`, vectorised `cpu_serial_kernel_vec` path, 8 float lanes,
  AVX2 dispatch, which is what any CPU with AVX2+FMA gets: the 1.12.1 wheel ships no AVX-512 kernels and rejects
  ATEN_CPU_CAPABILITY=avx512 as invalid).
  How this was established: the formula was checked bit for bit against the real torch 1.12.1 wheel
  (`torch-1.12.1-cp310-cp310-manylinux1_x86_64.whl` from PyPI, its `libtorch_cpu.so` called from a small C++
  harness through `at::linspace(Scalar, Scalar, steps, kFloat)`) on 3,084,855 points of 2,997 random grids:
  zero mismatches with "block base by FMA, lanes base + fl(k*step), scalar tail by FMA"; the textbook symmetric
  formula without FMA mismatches 29% of points under AVX2 (it is exact only under ATEN_CPU_CAPABILITY=default).
  `tests/fixtures/peers/competition_torch_linspace.json` stores that binary's own output for the Rust tests
  (tests/peers/torch_linspace.py + torch_linspace.cpp).
* `torch.mean(x.type(torch.float32), 0)` on CUDA: `mean_kernel_impl` sums in float32 (exact for 0/1 indicators,
  whatever the reduction order, while N < 2^24) and multiplies by `factor = float(T) / float(N*T)`
  (ReduceMomentKernel.cu, `MeanOps::project` is `a * factor`), not by a division as the CPU's `sum(...).div_(N)`
  does. For N a power of two this equals count/N exactly. The shim refuses a mean it cannot reproduce exactly:
  on a CPU tensor, over another dimension, or of values other than 0 and 1 (the order of a CUDA float sum is not
  emulated).
* `.cuda()`, `.cpu()`, `.detach()`, `from_numpy` share the numpy buffer: the shim has no in-place operation, so no
  tensor is ever written and sharing is indistinguishable from torch's device copies. The device is tracked only
  to keep metric.py honest (`.numpy()` of a CUDA tensor raises as in torch; the CUDA-only `mean` above) and to
  refuse mixing CPU and CUDA tensors where torch would. `tile` returns a read-only broadcast view where it can,
  so the [models x thresholds] copies metric.py asks for cost no memory.

How much these details matter, measured on metric_runner.py's 588 examples (2026-11): replacing the float32 torch
grid by a float64 one (numpy.linspace, or torch's symmetric formula in float64) changed no epsilon; replacing the
CUDA mean by the CPU one (sum / N) changed 3 of the 48 epsilons with N not a power of two (N = 24, 100, 3), no
forget score. For N a power of two the two means coincide.
"""

import builtins
from fractions import Fraction

import numpy as np

__version__ = "1.12.1+lethe.numpy.shim"

float32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_DTYPES = (_BOOL, _INT64, float32, _FLOAT64)
_DEFAULT_DTYPE = float32  # torch.get_default_dtype()


# ---------------------------------------------------------------------------------------------------------------
# type promotion (c10/core/ScalarType.h promoteTypes, aten/src/ATen/native/TypeProperties.cpp result_type)
# ---------------------------------------------------------------------------------------------------------------
def _category(dt):
    return 0 if dt == _BOOL else (1 if dt == _INT64 else 2)


def _promote(a, b):
    """promoteTypes restricted to bool, int64, float32, float64; None is ScalarType::Undefined."""
    if a is None:
        return b
    if b is None:
        return a
    if _category(a) != _category(b):
        return a if _category(a) > _category(b) else b
    return a if a.itemsize >= b.itemsize else b


def _combine_categories(higher, lower):
    # None checks first: numpy compares np.dtype(float64) == None as True (np.dtype(None) is float64).
    if higher is None:
        return lower
    if lower is None:
        return higher
    if _category(higher) == 2:
        return higher
    if higher == _BOOL or _category(lower) == 2:
        return _promote(higher, lower)
    return higher


def _scalar_dtype(x):
    # A Python number is a "wrapped number": float counts as the default dtype, int as int64.
    if isinstance(x, builtins.bool):
        return _BOOL
    if isinstance(x, int):
        return _INT64
    if isinstance(x, float):
        return _DEFAULT_DTYPE
    raise TypeError(f"torch shim: unsupported operand {x!r} of type {type(x).__name__}")


def _result_type(*operands):
    dim = zero = wrapped = None
    for x in operands:
        if isinstance(x, Tensor):
            if x._a.ndim > 0:
                dim = _promote(dim, x._a.dtype)
            else:
                zero = _promote(zero, x._a.dtype)
        else:
            wrapped = _promote(wrapped, _scalar_dtype(x))
    return _combine_categories(dim, _combine_categories(zero, wrapped))


def _device(*operands):
    """The device of an operation's result; CPU 0-d tensors may join CUDA ones, other mixes raise as in torch."""
    tensors = [x for x in operands if isinstance(x, Tensor)]
    devices = {x.device for x in tensors if x._a.ndim > 0}
    if not devices:
        devices = {x.device for x in tensors}
    if len(devices) > 1:
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!")
    return devices.pop()


def _operand(x, dt):
    if isinstance(x, Tensor):
        return x._a.astype(dt, copy=False)
    return np.asarray(x, dtype=dt)


def _binary(op, a, b):
    dt = _result_type(a, b)
    return Tensor(np.asarray(op(_operand(a, dt), _operand(b, dt))), _device(a, b))


# ---------------------------------------------------------------------------------------------------------------
# Tensor
# ---------------------------------------------------------------------------------------------------------------
class Tensor:
    """A numpy array with a device tag ("cpu" or "cuda"). Never written after creation."""

    __slots__ = ("_a", "device")
    __array_ufunc__ = None  # a Tensor handed to numpy is a bug in the caller or the shim: fail loudly

    def __init__(self, array, device):
        if array.dtype not in _DTYPES:
            raise TypeError(f"torch shim: dtype {array.dtype} is not implemented")
        self._a = array
        self.device = device

    @property
    def shape(self):
        return tuple(self._a.shape)

    def cuda(self):
        return Tensor(self._a, "cuda")

    def cpu(self):
        return Tensor(self._a, "cpu")

    def detach(self):
        return Tensor(self._a, self.device)

    def numpy(self):
        if self.device != "cpu":
            raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                            "host memory first.")
        return self._a

    def max(self):
        return Tensor(np.asarray(self._a.max()), self.device)

    def min(self):
        return Tensor(np.asarray(self._a.min()), self.device)

    def type(self, dtype):
        if not isinstance(dtype, np.dtype) or dtype not in _DTYPES:
            raise NotImplementedError(f"torch shim: .type({dtype!r})")
        return Tensor(self._a.astype(dtype), self.device)

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        for k in key:
            if not (k is None or (isinstance(k, slice) and k == slice(None))):
                raise NotImplementedError(f"torch shim: indexing with {k!r} (only `:` and None)")
        return Tensor(self._a[key], self.device)

    def __bool__(self):
        if self._a.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self._a.reshape(()))

    def __int__(self):
        if self._a.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self._a.reshape(()).item())

    def __add__(self, other):
        return _binary(np.add, self, other)

    def __sub__(self, other):
        return _binary(np.subtract, self, other)

    def __mul__(self, other):
        # bool * bool stays bool in torch (logical and), as in numpy.
        return _binary(np.multiply, self, other)

    def __rmul__(self, other):
        return _binary(np.multiply, other, self)

    def __gt__(self, other):
        return _binary(np.greater, self, other)

    def __ge__(self, other):
        return _binary(np.greater_equal, self, other)

    def __lt__(self, other):
        return _binary(np.less, self, other)

    def __repr__(self):
        return f"tensor({self._a!r}, device='{self.device}')"


# ---------------------------------------------------------------------------------------------------------------
# torch.linspace: the float32 CPU kernel of torch 1.12.1 (see the module docstring)
# ---------------------------------------------------------------------------------------------------------------
def _round_f32(q: Fraction) -> np.float32:
    """Correctly rounded float32 of an exact rational (no double rounding)."""
    d = float(q)  # int/int true division in CPython is correctly rounded to double
    f = np.float32(d)
    if Fraction(float(f)) == q:
        return f
    # d may sit exactly on a float32 midpoint although q does not: decide with the exact value.
    lo = f if Fraction(float(f)) < q else np.nextafter(f, np.float32(-np.inf))
    hi = np.nextafter(lo, np.float32(np.inf))
    mid = (Fraction(float(lo)) + Fraction(float(hi))) / 2
    if q < mid:
        return lo
    if q > mid:
        return hi
    return lo if (int(np.array(lo).view(np.uint32)) & 1) == 0 else hi


def _fma32(a, b, c) -> np.float32:
    return _round_f32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def torch_linspace_f32(start: float, end: float, steps: int) -> np.ndarray:
    """torch 1.12.1 `torch.linspace(start, end, steps)` (default dtype float32, CPU, AVX2 kernel)."""
    if steps == 0:
        return np.zeros(0, dtype=np.float32)
    s = np.float32(start)
    e = np.float32(end)
    if steps == 1:
        return np.array([s], dtype=np.float32)  # linspace_out: result.fill_(start)
    step = np.float32(np.float32(e - s) / np.float32(steps - 1))
    halfway = steps // 2
    lanes = 8
    nvec = (steps // (2 * lanes)) * (2 * lanes)
    out = np.empty(steps, dtype=np.float32)
    for b in range(0, nvec, lanes):
        if b < halfway:
            base = _fma32(step, np.float32(b), s)
        else:
            base = _fma32(-step, np.float32(steps - b - 1), e)
        out[b] = base
        for k in range(1, lanes):
            out[b + k] = np.float32(base + np.float32(np.float32(k) * step))
    for j in range(nvec, steps):
        if j < halfway:
            out[j] = _fma32(step, np.float32(j), s)
        else:
            out[j] = _fma32(-step, np.float32(steps - j - 1), e)
    return out


# at::internal::GRAIN_SIZE: above it the kernel runs in parallel chunks, each restarting the 16-point blocking, so the
# output depends on the thread count (see crate/src/competition/emulate.rs). metric.py's grids stay far below it:
# logit-scaled confidences lie within +-log(1e45) ~ +-103.6, so ceil(range * 100) <= 20,724 points.
_LINSPACE_ONE_CHUNK = 32768


def _scalar_arg(x):
    """A `Scalar` argument: a Python number or a one-element tensor (its value as a double)."""
    if isinstance(x, Tensor):
        if x._a.size != 1:
            raise TypeError("linspace(): argument 'start'/'end' must be Number, not Tensor")
        return float(x._a.reshape(()).item())
    return float(x)


def linspace(start, end, steps):
    if not isinstance(steps, int) or isinstance(steps, builtins.bool) or steps < 0:
        raise RuntimeError(f"number of steps must be non-negative (got {steps!r})")
    if steps > _LINSPACE_ONE_CHUNK:
        raise NotImplementedError(f"torch shim: linspace of {steps} points (torch splits grids over "
                                  f"{_LINSPACE_ONE_CHUNK} points across threads; that is not emulated)")
    return Tensor(torch_linspace_f32(_scalar_arg(start), _scalar_arg(end), steps), "cpu")


# ---------------------------------------------------------------------------------------------------------------
# the other functions metric.py calls
# ---------------------------------------------------------------------------------------------------------------
def from_numpy(array):
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor(array, "cpu")


def cat(tensors, dim=0):
    tensors = list(tensors)
    dt = _result_type(*tensors)
    return Tensor(np.concatenate([t._a.astype(dt, copy=False) for t in tensors], axis=dim), _device(*tensors))


def tile(input, dims):
    dims = tuple(dims)
    a = input._a
    # torch.tile (like np.tile) pads dims or the shape with leading ones.
    shape = (1,) * (len(dims) - a.ndim) + a.shape
    reps = (1,) * (len(shape) - len(dims)) + dims
    a = a.reshape(shape)
    if all(r == 1 or n == 1 for n, r in zip(shape, reps)):
        out = np.broadcast_to(a, tuple(n * r for n, r in zip(shape, reps)))
    else:
        out = np.tile(a, reps)
    return Tensor(out, input.device)


def le(input, other):
    return _binary(np.less_equal, input, other)


def eq(input, other):
    return _binary(np.equal, input, other)


def logical_and(input, other):
    return Tensor(np.logical_and(input._a, other._a), _device(input, other))


def logical_not(input):
    return Tensor(np.logical_not(input._a), input.device)


def mean(input, dim):
    """torch.mean(input, dim) of a float32 CUDA tensor of 0/1 values over dim 0 of a matrix (see module docs)."""
    a = input._a
    if input.device != "cuda":
        raise NotImplementedError("torch shim: mean on CPU (sum then divide) is not emulated")
    if a.ndim != 2 or dim != 0 or a.dtype != float32:
        raise NotImplementedError("torch shim: mean is emulated only over dim 0 of a float32 matrix")
    n, t = a.shape
    if not n < 2 ** 24 or not np.all((a == 0) | (a == 1)):
        raise NotImplementedError("torch shim: CUDA mean is exact here only for 0/1 values and fewer than 2^24 rows")
    if t == 0:
        return Tensor(np.zeros(0, dtype=np.float32), "cuda")
    counts = np.count_nonzero(a, axis=0).astype(np.float32)
    # factor_t factor = static_cast<factor_t>(num_output_elements) / numel: float / int64 -> float division.
    factor = np.float32(np.float32(t) / np.float32(n * t))
    return Tensor((counts * factor).astype(np.float32), "cuda")


def where(condition, input, other):
    if condition._a.dtype != _BOOL:
        raise NotImplementedError("torch shim: where() needs a bool condition")
    if input._a.dtype != other._a.dtype:
        raise NotImplementedError("torch shim: where() of two dtypes (torch 1.12 promotes nothing here)")
    return Tensor(np.where(condition._a, input._a, other._a), _device(condition, input, other))


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(n, int) and n >= 0 for n in size):
        raise TypeError(f"torch shim: size must be non-negative ints (got {size!r})")
    return size


def zeros(*size):
    return Tensor(np.zeros(_size(size), dtype=_DEFAULT_DTYPE), "cpu")


def ones(*size):
    return Tensor(np.ones(_size(size), dtype=_DEFAULT_DTYPE), "cpu")


def full(size, fill_value):
    # torch.full infers the dtype from fill_value: a Python float gives the default dtype.
    if not isinstance(fill_value, float):
        raise NotImplementedError(f"torch shim: full() with fill value {fill_value!r} (only Python floats)")
    return Tensor(np.full(_size((size,)), fill_value, dtype=_DEFAULT_DTYPE), "cpu")


def zeros_like(input):
    return Tensor(np.zeros(input._a.shape, dtype=input._a.dtype), input.device)


def ceil(input):
    return Tensor(np.ceil(input._a), input.device)
