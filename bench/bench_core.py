"""Our traced NumPy attention against PyTorch's fused kernel, side by side in one run.

    python -m bench.bench_core            # full table (~1-2 min on 2 cores)
    python -m bench.bench_core --quick    # T up to 512 only
    python -m bench.bench_core --threads 1   # both libraries on one thread (a shared machine)

What is timed: one call of ``attention_core.scaled_dot_product_attention`` (float64, the
full AttentionTrace kept: scores, scaled, weights, outputs, all copied read-only) against
``torch.nn.functional.scaled_dot_product_attention`` on the CPU, in float64 and float32,
for 12 heads, d_k = 32 and 64, T = 16 … 2048. Times are medians over repeats (fewer for
big T) after one warm-up call. Memory is measured in a fresh process per cell: peak RSS
growth of the call (VmHWM after the call minus VmRSS before it, with the high-water mark
reset through /proc/self/clear_refs), plus tracemalloc's peak for ours (NumPy's own
allocations). This script prints; it never asserts a time.

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, when set on this machine, slow a current NumPy; for
this run only they are removed together (the script re-executes itself without them) and
the BLAS in use is printed through threadpoolctl.

``--threads N`` gives NumPy's BLAS and torch N threads each (OPENBLAS/OMP/MKL_NUM_THREADS
set before either library loads, and torch.set_num_threads). On a machine whose cores
other work is using, one thread each is the fair comparison: a spinning BLAS thread pool
that loses its core costs more than the maths. The libraries are timed interleaved
(ours, torch f64, torch f32, ours, …), so background load hits all three alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

if __name__ == "__main__" and {"-h", "--help"} & set(sys.argv[1:]):  # before torch loads and the run starts
    print(__doc__)
    sys.exit(0)

_OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if any(v in os.environ for v in _OPENBLAS_VARS) and "--keep-openblas-env" not in sys.argv:
    removed = {v: os.environ[v] for v in _OPENBLAS_VARS if v in os.environ}
    env = {k: v for k, v in os.environ.items() if k not in _OPENBLAS_VARS}
    env["BENCH_REMOVED_OPENBLAS_ENV"] = json.dumps(removed)
    os.execve(sys.executable, [sys.executable, "-m", "bench.bench_core", *sys.argv[1:]], env)

if "--threads" in sys.argv:
    _n = sys.argv[sys.argv.index("--threads") + 1]
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _n

import platform  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from attention_core import scaled_dot_product_attention  # noqa: E402
from bench.core import ROOT, machine  # noqa: E402

HEADS = 12
D_KS = (32, 64)
REPEATS = {16: 100, 128: 40, 512: 11, 2048: 3}


def inputs(t: int, d_k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.normal(size=(HEADS, t, d_k)) for _ in range(3))  # (H, T, d_k) float64
    return q, k, v


def make_calls(q, k, v):
    qt64, kt64, vt64 = (torch.from_numpy(x) for x in (q, k, v))
    qt32, kt32, vt32 = (x.float() for x in (qt64, kt64, vt64))
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def ours():
        return scaled_dot_product_attention(q, k, v)

    def torch64():
        with torch.inference_mode():
            return sdpa(qt64, kt64, vt64)

    def torch32():
        with torch.inference_mode():
            return sdpa(qt32, kt32, vt32)

    return {"ours": ours, "torch64": torch64, "torch32": torch32}


def median_seconds(calls: dict, repeats: int) -> dict[str, float]:
    """Median seconds per call of each function, timed interleaved after one warm-up each."""
    for fn in calls.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, fn in calls.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        found = re.search(rf"^{field}:\s+(\d+)", f.read(), re.M)
    if found is None:
        raise OSError(f"no {field} in /proc/self/status")
    return int(found.group(1))


def memory_child(impl: str, t: int, d_k: int) -> None:
    """Run in a fresh process: one call of ``impl``, print its peak memory as JSON."""
    q, k, v = inputs(t, d_k)
    fn = make_calls(q, k, v)[impl]
    out: dict[str, float | None] = {}
    if impl == "ours":
        tracemalloc.start()
        r = fn()
        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        del r
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current RSS
        before = _status_kb("VmRSS")
        r = fn()
        out["rss_growth_mb"] = (_status_kb("VmHWM") - before) / 1024
        del r
    except OSError:
        out["rss_growth_mb"] = None
    print(json.dumps(out))


def measure_memory(impl: str, t: int, d_k: int) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "bench.bench_core", "--memory-child", impl, str(t), str(d_k)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def blas_report() -> list[str]:
    lines = []
    try:
        from threadpoolctl import threadpool_info

        for info in threadpool_info():
            lines.append(
                f"  {info.get('user_api')}: {info.get('internal_api')} {info.get('version')} "
                f"threads={info.get('num_threads')} arch={info.get('architecture')} "
                f"({Path(info.get('filepath', '')).name})"
            )
    except ImportError:
        lines.append("  threadpoolctl not installed")
    lines.append(
        f"  torch: {torch.__version__}, threads={torch.get_num_threads()}, "
        f"cpu capability={torch.backends.cpu.get_cpu_capability()}, "
        f"mkldnn={torch.backends.mkldnn.is_available()}"
    )
    lines.append(f"  numpy: {np.__version__}")
    return lines


def main(argv: list[str]) -> None:
    if "--threads" in argv:
        torch.set_num_threads(int(argv[argv.index("--threads") + 1]))
    if argv[:1] == ["--memory-child"]:
        memory_child(argv[1], int(argv[2]), int(argv[3]))
        return
    ts = [16, 128, 512] if "--quick" in argv else [16, 128, 512, 2048]

    print(
        f"# attention_core vs torch SDPA — {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}"
    )
    removed = os.environ.get("BENCH_REMOVED_OPENBLAS_ENV")
    if removed:
        print(f"# removed for this run only: {removed}")
    else:
        print(
            "# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE: not set"
            if not any(v in os.environ for v in _OPENBLAS_VARS)
            else f"# kept as asked: { {v: os.environ.get(v) for v in _OPENBLAS_VARS} }"
        )
    print("# BLAS / thread pools:")
    for line in blas_report():
        print(line)
    print(f"# shapes (H={HEADS}, T, d_k) with d_v = d_k; times are medians in ms; ratio = ours / torch")
    print(
        "# memory: 'RSS' = peak RSS growth of one call in a fresh process (MB); "
        "'tm' = tracemalloc peak of ours (NumPy allocations, MB)"
    )
    print()
    header = (
        f"{'T':>5} {'d_k':>4} {'reps':>4} | {'ours f64':>10} {'torch f64':>10} {'torch f32':>10} | "
        f"{'ours/t64':>9} {'ours/t32':>9} | {'RSS ours':>9} {'RSS t64':>8} {'RSS t32':>8} {'tm ours':>8}"
    )
    print(header)
    print("-" * len(header))
    wall0 = time.perf_counter()
    for t in ts:
        for d_k in D_KS:
            q, k, v = inputs(t, d_k)
            calls = make_calls(q, k, v)
            # sanity: the three agree (not a test; just so we never time a wrong answer)
            ref = calls["torch64"]().numpy()
            ours_out = calls["ours"]().outputs
            assert np.allclose(ours_out, ref, rtol=1e-9, atol=1e-11), "ours != torch float64"
            del ref, ours_out
            reps = REPEATS[t]
            ms = {name: 1e3 * sec for name, sec in median_seconds(calls, reps).items()}
            del calls, q, k, v
            mem = {name: measure_memory(name, t, d_k) for name in ("ours", "torch64", "torch32")}

            def mb(x):
                return "n/a" if x is None else f"{x:.1f}"

            print(
                f"{t:>5} {d_k:>4} {reps:>4} | {ms['ours']:>10.3f} {ms['torch64']:>10.3f} {ms['torch32']:>10.3f} | "
                f"{ms['ours'] / ms['torch64']:>9.2f} {ms['ours'] / ms['torch32']:>9.2f} | "
                f"{mb(mem['ours']['rss_growth_mb']):>9} {mb(mem['torch64']['rss_growth_mb']):>8} "
                f"{mb(mem['torch32']['rss_growth_mb']):>8} {mb(mem['ours']['tracemalloc_peak_mb']):>8}",
                flush=True,
            )
    print()
    print(f"# total wall time {time.perf_counter() - wall0:.1f} s")
    print(f"# {machine()}")


if __name__ == "__main__":
    main(sys.argv[1:])
