"""Where and how a model computes: which device it runs on, how many CPU threads torch may use,
and what this machine can do at all (its measured peaks, a model's arithmetic, the dtype a run uses).

Devices are checked before anything is built, so a missing GPU is one clear sentence ("this
machine has no CUDA GPU; available: cpu") instead of torch's AssertionError from deep inside
`.to("cuda")`. glassformer runs on three kinds of device: cpu, cuda (cuda:N for the N-th GPU) and
mps (Apple).
"""

from __future__ import annotations

import contextlib
import platform
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import torch

from glassformer.config import BF16_MIN_WORK, DEFAULT_THREADS, MAX_THREADS  # noqa: F401 (re-exported)
from glassformer.errors import DamagedFile, DeviceUnavailable, GlassformerError, UsageError
from glassformer.files import default_cache_dir, read_json, write_json_atomic
from glassformer.messages import N_, say, t

KINDS = ("cpu", "cuda", "mps")


def available() -> list[str]:
    """The devices this machine offers, e.g. ['cpu', 'cuda:0', 'cuda:1']."""
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        found.append("mps")
    return found


def check_device(name: str, flag: str = "--device") -> str:
    """Return `name` if this machine has that device; else an error naming what it does have."""
    here = ", ".join(available())
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError, ValueError):
        device = None
    if device is None or device.type not in KINDS:
        raise UsageError(
            "device.unknown",
            "{flag}={name!r} is not a device glassformer runs on: use "
            "cpu, cuda, cuda:N or mps (this machine has: {here}).",
            flag=flag,
            name=name,
            here=here,
        )
    if device.type == "cuda":
        if not torch.cuda.is_available():
            why = t(
                N_("this torch was built without CUDA")
                if torch.version.cuda is None
                else N_("no CUDA GPU or driver was found")
            )
            raise DeviceUnavailable(
                "device.no_cuda",
                "{flag}={name}: this machine cannot use CUDA ({why}). Available: {here}. Use {flag}=cpu.",
                flag=flag,
                name=name,
                why=why,
                here=here,
            )
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise DeviceUnavailable(
                "device.index",
                "{flag}={name}: this machine has {count} CUDA GPU(s), numbered from 0. Available: {here}.",
                flag=flag,
                name=name,
                count=count,
                here=here,
            )
    if device.type == "mps" and not torch.backends.mps.is_available():
        raise DeviceUnavailable(
            "device.no_mps",
            "{flag}={name}: this machine has no Apple GPU (MPS) that torch can use. Available: {here}. Use {flag}=cpu.",
            flag=flag,
            name=name,
            here=here,
        )
    return name


# ---- how many CPU threads torch may use: one rule for every command ------------------------------
# Every verb that computes (train, sample, demo, lesson, trace, attention, grads, params, lab,
# explore) takes `--threads N` with the same default, and runs its work inside `using_threads(N)`.
#
# Why one thread by default: glassformer's models are small (matrices of a few hundred numbers a
# side). Splitting each product across threads costs synchronisation; on a busy 2-core machine two
# spinning threads made `sample` take 88 s instead of 2.8 s. On an idle machine a second thread gains
# ~25% for the `baby` training shape, so `--threads 0` (torch's own choice: every core) remains one
# flag away.

# DEFAULT_THREADS (1, see the comment above) is defined in config.py, where `--help` reads it without torch


def check_threads(n: int) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_THREADS:
        raise UsageError(
            "threads",
            "--threads must be a whole number from 0 (torch's choice: every core) to {most}, got {value!r}.",
            most=MAX_THREADS,
            value=n,
        )
    return n


@contextlib.contextmanager
def using_threads(n: int = DEFAULT_THREADS):
    """Run a block with n intra-op threads (0: leave torch's setting), then restore the previous one."""
    check_threads(n)
    previous = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


# ---- the machine's own speed of light -------------------------------------------------------------
# A model's speed means little alone: 10,000 tokens/s is fast on a laptop core and slow on a GPU.
# What a learner can judge is the fraction of what this machine can do at all: the model's
# arithmetic per second over the machine's matrix-product rate (MFU, "model FLOP utilisation", for
# training) or the bytes a decoding step must read over the memory bandwidth (for batch-1 decoding,
# where every weight is read once per token and the arithmetic is tiny). Both peaks are measured
# here, on this machine, in this process, at its thread setting: no datasheet figure.

PROBE_SIZE = 1024  # the side of the square matrices timed (1024²: big enough to reach the peak)
STREAM_MIB = 64  # the buffer copied to time memory bandwidth (far beyond any CPU cache)
FAST_BF16 = 1.5  # bf16 products at least this much faster than float32: "this device's bf16 pays"


def _sync(device: str) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def _best_seconds(fn, device: str, budget_s: float, at_least: int = 3) -> float:
    """The fastest of repeated calls of fn within about budget_s (at least `at_least` calls after one
    warm-up): the fastest call is the one the machine's other work disturbed least."""
    fn()
    _sync(device)
    best, spent, calls = float("inf"), 0.0, 0
    while calls < at_least or spent < budget_s:
        start = time.perf_counter()
        fn()
        _sync(device)
        took = time.perf_counter() - start
        best, spent, calls = min(best, took), spent + took, calls + 1
    return best


def matmul_call(dtype: torch.dtype, device: str = "cpu", size: int = PROBE_SIZE):
    """(a function computing one (size × size) @ (size × size) product in `dtype`, its FLOPs: 2·size³).
    A benchmark times the function inside its own rounds, beside what it measures."""
    g = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=g).to(device=device, dtype=dtype)  # (S, S)
    b = torch.randn(size, size, generator=g).to(device=device, dtype=dtype)  # (S, S)
    out = torch.empty(size, size, device=device, dtype=dtype)  # (S, S)
    return (lambda: torch.mm(a, b, out=out)), 2 * size**3


def matmul_flops(dtype: torch.dtype, device: str = "cpu", size: int = PROBE_SIZE, budget_s: float = 0.2) -> float:
    """FLOP/s of one (size × size) product in `dtype`, the fastest call within about budget_s."""
    fn, flops = matmul_call(dtype, device, size)
    return flops / _best_seconds(fn, device, budget_s)


def copy_call(device: str = "cpu", mib: int = STREAM_MIB):
    """(a function copying a `mib` MiB float32 buffer, the bytes it moves: read once, written once)."""
    src = torch.ones(mib * 2**20 // 4, device=device)  # (n,)
    dst = torch.empty_like(src)  # (n,)
    return (lambda: dst.copy_(src)), 2 * src.numel() * 4


def memory_bandwidth(device: str = "cpu", mib: int = STREAM_MIB, budget_s: float = 0.2) -> float:
    """Bytes/s of a large copy, the fastest call within about budget_s."""
    fn, moved = copy_call(device, mib)
    return moved / _best_seconds(fn, device, budget_s)


@dataclass(frozen=True)
class MachinePeak:
    """This machine's measured rates, at the thread count they were measured with."""

    device: str
    threads: int
    float32_flops: float  # FLOP/s of a float32 matrix product
    bfloat16_flops: float  # FLOP/s of a bfloat16 matrix product
    bandwidth: float  # bytes/s of a large copy (read + write)

    @property
    def bf16_speedup(self) -> float:
        return self.bfloat16_flops / self.float32_flops

    @property
    def bf16_pays(self) -> bool:
        """Whether this device's bf16 products are fast (matrix units: AMX, AVX-512 BF16, tensor cores)."""
        return self.bf16_speedup >= FAST_BF16

    def flops(self, dtype: str) -> float:
        """The peak that matches a run's arithmetic: its dtype's product rate."""
        return self.bfloat16_flops if dtype == "bfloat16" else self.float32_flops


def measure_machine(device: str = "cpu", budget_s: float = 0.2, size: int = PROBE_SIZE) -> MachinePeak:
    """Time float32 and bfloat16 products and a large copy on `device`, about budget_s each."""
    return MachinePeak(
        device=device,
        threads=torch.get_num_threads(),
        float32_flops=matmul_flops(torch.float32, device, size, budget_s),
        bfloat16_flops=matmul_flops(torch.bfloat16, device, size, budget_s),
        bandwidth=memory_bandwidth(device, budget_s=budget_s),
    )


def machine_name(device: str = "cpu") -> str:
    """What this machine's peak belongs to: the CPU's model name (or the GPU's), with torch's version."""
    if torch.device(device).type == "cuda":
        name = torch.cuda.get_device_name(torch.device(device))
    else:
        name = platform.processor() or platform.machine()
        with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
            name = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), name)
    return f"{name} | torch {torch.__version__}"


def peak_file() -> Path:
    """Where `glassformer bench machine` keeps its careful measurement: beside the data cache."""
    return default_cache_dir() / "machine.json"


def _peak_key(device: str, threads: int) -> str:
    return f"{machine_name(device)} | {torch.device(device).type} | {threads} threads"


# A saved figure outside these bounds is no measurement (a damaged or hand-edited machine.json): the
# summary would print "nan%" or "398152842320% of peak". Per second, for FLOPs and bytes alike:
PEAK_RANGE = (1e6, 1e18)  # a megaFLOP/s (a 1980s PC) to an exaFLOP/s (a whole supercomputer)
PEAK_FIGURES = ("float32_flops", "bfloat16_flops", "bandwidth")
PEAK_MOST_BYTES = 1 << 20  # machine.json holds a few hundred bytes per machine: a larger file is not one


def save_peak(peak: MachinePeak) -> Path:
    """Keep a careful measurement for later runs on this machine (keyed by machine, device, threads).
    A machine.json that cannot be read (damaged, nested thousands deep, not an object) is replaced."""
    path = peak_file()
    known = _read_peaks(path, N_("replacing {path}: {problem}"))
    known[_peak_key(peak.device, peak.threads)] = asdict(peak)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path, known, indent=1)
    return path


def _read_peaks(path: Path, say_key: str) -> dict:
    """machine.json's entries; {} when there is none, or (with one line on stderr, `say_key`, naming
    the file and what is wrong) when it is not a file of entries glassformer wrote."""
    if not path.exists() and not path.is_symlink():
        return {}
    try:
        known = read_json(path, t("`glassformer bench machine` writes it."), most=PEAK_MOST_BYTES)
    except (GlassformerError, OSError) as e:
        return _ignored(path, say_key, str(e))
    if not isinstance(known, dict):
        return _ignored(
            path,
            say_key,
            t(
                "it holds a JSON {found}, not the object of measurements glassformer writes.",
                found=type(known).__name__,
            ),
        )
    return known


def _ignored(path: Path, say_key: str, problem: str) -> dict:
    _say_once(say_key, path, problem)
    return {}


_SAID: set[tuple[str, str, str]] = set()  # one line per file and problem in a process, however often it is read


def _say_once(key: str, path: Path, problem: str) -> None:
    if (key, str(path), problem) not in _SAID:
        _SAID.add((key, str(path), problem))
        say(key, file=sys.stderr, path=path, problem=problem)


def checked_peak(saved: object, threads: int) -> MachinePeak:
    """A saved entry as a MachinePeak, or DamagedFile ("bench.peak.*") saying why it is no measurement
    at `threads`: not an object of MachinePeak's fields, or a figure that no machine measures."""
    names = [f.name for f in fields(MachinePeak)]
    if not isinstance(saved, dict) or sorted(saved) != sorted(names):
        raise DamagedFile(
            "bench.peak.not_entry",
            "its entry for this machine is not a measurement glassformer "
            "wrote (an object of {fields}, at this thread count).",
            fields=", ".join(names),
        )
    if not isinstance(saved["device"], str) or type(saved["threads"]) is not int or saved["threads"] != threads:
        raise DamagedFile(
            "bench.peak.not_entry",
            "its entry for this machine is not a measurement glassformer "
            "wrote (an object of {fields}, at this thread count).",
            fields=", ".join(names),
        )
    low, high = PEAK_RANGE
    for name in PEAK_FIGURES:
        value = saved[name]
        if type(value) not in (int, float) or not low <= value <= high:  # NaN, inf, 0 and below, text fail here
            raise DamagedFile(
                "bench.peak.impossible",
                "its {name} is {value}, which no machine measures (a rate per second from {low:g} to {high:g}).",
                name=name,
                value=repr(value)[:40],
                low=low,
                high=high,
            )
    return MachinePeak(**saved)


_PEAKS: dict[tuple[str, int], tuple[MachinePeak, bool]] = {}


def machine_peak(device: str = "cpu") -> tuple[MachinePeak, bool]:
    """This machine's peak for `device` at the current thread count, and whether it is the careful
    one: the measurement `glassformer bench machine` saved (peak_file), else a quick probe of a few
    products (~0.1 s on a quiet CPU, once per process): what `train` divides by for its summary line.
    A saved file or entry that is no measurement is ignored with one line naming the file (never an
    error: a speed summary must not stop a run). A benchmark that wants a careful figure calls
    measure_machine inside its own rounds."""
    threads = torch.get_num_threads()
    key = (device, threads)
    if key not in _PEAKS:
        path = peak_file()
        saved = _read_peaks(
            path,
            N_(
                "ignored {path}: {problem} The speed summary uses a quick "
                "probe instead; `glassformer bench machine` measures "
                "carefully and writes the file again."
            ),
        ).get(_peak_key(device, threads))
        try:
            _PEAKS[key] = (checked_peak(saved, threads), True)
        except DamagedFile as e:
            if saved is not None:  # none saved for this machine: nothing to say
                _say_once(
                    N_(
                        "ignored {path}: {problem} The speed summary uses a quick "
                        "probe instead; `glassformer bench machine` measures "
                        "carefully and writes the file again."
                    ),
                    path,
                    str(e),
                )
            _PEAKS[key] = (measure_machine(device, budget_s=0.02, size=512), False)
    return _PEAKS[key]


# ---- a model's arithmetic -------------------------------------------------------------------------
def flops_per_token(matmul_params: int, n_layers: int, d_model: int, context: int) -> int:
    """Training FLOPs per token of one optimizer step: 6·N + 12·L·C·T.

    N: the parameters that take part in matrix products (all but a learned position table, which is
    only looked up; a head tied to the token table counts once). Each such weight costs 2 FLOPs per
    token forward (a multiply and an add) and 4 backward (the gradients of input and weight): 6·N.
    Attention adds products that have no weight: Q Kᵀ and weights @ V are each 2·T·C FLOPs per token
    per layer forward, so 4·L·C·T forward and 12·L·C·T with the backward. T is the full context, as
    Kaplan et al. 2020 and PaLM (appendix B) count it: a causal mask halves the useful work but the
    kernels compute (or skip) it differently, and one convention for every contender is what matters.
    Norms, softmax, biases and the optimizer are left out (a few per cent at these sizes)."""
    return 6 * matmul_params + 12 * n_layers * d_model * context


def matmul_params(model: torch.nn.Module) -> int:
    """N of flops_per_token: the parameters of a glassformer token model that take part in matrix
    products. Left out: a learned position table and an untied token table (both only looked up);
    a token table tied to the head is the head's weight, a product, and counts once."""
    n = model.num_params(exclude_positions=True)
    table = getattr(getattr(model, "tok_embed", None), "table", None)
    head = getattr(model, "head", None)
    if table is not None and (head is None or head.weight is not table.weight):
        n -= table.weight.numel()
    return n


def model_flops_per_token(model: torch.nn.Module, context: int) -> int:
    """flops_per_token for a glassformer model built from a ModelConfig (model.cfg)."""
    return flops_per_token(matmul_params(model), model.cfg.n_layers, model.cfg.d_model, context)


def decode_bytes_per_token(model: torch.nn.Module, bytes_per_number: int = 4) -> int:
    """The least a batch-1 decoding step must read: every weight once (the KV cache read is added by
    the caller, it grows with the position). The bandwidth limit of decoding is bandwidth / this."""
    return matmul_params(model) * bytes_per_number


# ---- which arithmetic a run uses ------------------------------------------------------------------
# A new `glassformer train` or `demo` run asks for --dtype=auto unless told otherwise; the library's
# TrainConfig stays float32. auto picks bfloat16 (autocast: float32 weights, bf16 products) only where
# it was measured to pay (docs/performance.md, "bf16 by default"): the device's bf16 products are
# fast (the probe), and on a CPU also the attention is the glass path (PyTorch's CPU flash kernel is
# slower in bf16 than in float32) and a step's products are big enough, B·T·C² ≥ BF16_MIN_WORK: below
# that the casts around every product cost more than the faster products save (seed000, B·T·C² ≈ 1M:
# 0.85× float32's step; baby, ≈ 12.6M: 1.84×). The choice is made once, when the run starts, and
# written to its config.json, so a resumed run keeps it whatever the probe says later.
DTYPES = ("float32", "bfloat16", "auto")
# BF16_MIN_WORK (B·T·C²) is defined in config.py, where `train --help` reads it without torch


def auto_dtype(device: str = "cpu", model=None, train=None) -> tuple[str, str, dict]:
    """(the dtype --dtype=auto picks, the message key that says why, that message's fields).
    model, train: the run's ModelConfig and TrainConfig, when known (without them: the probe alone);
    with train, the probe is the one at the run's own thread count, wherever this is asked from."""
    with using_threads(train.threads if train is not None else 0):  # 0: the current setting
        peak = machine_peak(device)[0]
    if not peak.bf16_pays:
        return (
            "float32",
            N_("this machine's bfloat16 products are only {ratio:.1f}× float32's"),
            {"ratio": peak.bf16_speedup},
        )
    if torch.device(device).type == "cpu" and model is not None:
        if model.attention != "glass":
            return (
                "float32",
                N_("on a CPU, the fused attention ({attention}) is slower in bfloat16"),
                {"attention": model.attention},
            )
        if train is not None:
            work = train.batch_size * train.seq_len * model.d_model**2
            if work < BF16_MIN_WORK:
                return (
                    "float32",
                    N_(
                        "batch × seq_len × d_model² = {work:,} is below {least:,}, "
                        "too little work for bfloat16 to pay on a CPU"
                    ),
                    {"work": work, "least": BF16_MIN_WORK},
                )
    return "bfloat16", N_("this machine's bfloat16 products are {ratio:.1f}× float32's"), {"ratio": peak.bf16_speedup}


def resolve_dtype(dtype: str, device: str = "cpu", model=None, train=None) -> str:
    """The dtype a run computes in: float32 and bfloat16 are themselves, auto is auto_dtype's pick."""
    return dtype if dtype != "auto" else auto_dtype(device, model, train)[0]
