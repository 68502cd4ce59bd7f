"""The Chinese word segmenters side by side: jieba (pure Python) against rjieba (jieba-rs).

    python -m bench.bench_segmenter              # 7 rounds (~25 s on 2 cores)
    python -m bench.bench_segmenter --rounds 11

What is measured, each number in a fresh ``python`` subprocess (no module, dictionary or
segmenter state from an earlier run; the operating system's file cache is not dropped):

* import: wall time of ``import jieba`` / ``import rjieba``. rjieba builds its default
  dictionary here (``rjieba._DEFAULT_JIEBA = Jieba()`` runs at import); jieba does not.
* first cut: wall time of the first ``jieba.lcut(s, HMM=True)`` / ``rjieba.cut(s, hmm=True)``
  of s = "注意力机制很重要", the call attention_core.text makes. jieba loads its dictionary
  here (the prefix dict, from its cache file or built from dict.txt).
* import + first cut: the two together, in wall time and in the process's CPU time (the
  CPU time does not grow when other work on the machine takes the cores). This is what a
  learner waits for the first time they choose "words" after the server starts.
* warm cut: median wall time of one more cut of the same 8-character sentence, and of a
  240-character one ("注意力机制很重要" × 30), over 200 calls each after the first cut.
* peak RSS growth: the process's peak resident memory (VmHWM) after import and first cut,
  minus its resident memory (VmRSS) just before the import, with the peak reset through
  /proc/self/clear_refs first; and the resident memory still held after the first cut.

jieba is measured twice. "jieba, cached": its prefix-dict cache file (jieba.cache, which
jieba writes to the temp directory the first time it builds the dictionary) is already
there, as on a machine that has run jieba before. "jieba, no cache": an empty temp
directory per run, as on a fresh container; jieba builds the dictionary from dict.txt and
writes the cache. Both use a temp directory of this script's own (TMPDIR), never the
machine's /tmp/jieba.cache. rjieba keeps its dictionary inside its compiled module and
has no cache file.

The variants run interleaved, rounds × (jieba no cache, jieba cached, rjieba) in a rotating
order, so background load hits all alike; the table prints the median of each number over
the rounds and, in brackets, the lowest and highest. A library that is not installed is
skipped (the app needs only rjieba; ``pip install jieba==0.42.1`` to compare). This script
prints; it never asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.core import ROOT, machine

SHORT = "注意力机制很重要"
LONG = SHORT * 30
WARM_CALLS = 200
VARIANTS = ("jieba, no cache", "jieba, cached", "rjieba")


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"{field} not in /proc/self/status")


def child(lib: str) -> None:
    """One measurement in this fresh process; prints one JSON line."""
    import logging
    import time

    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current RSS
        rss_before = _status_kb("VmRSS")
    except OSError:
        rss_before = None
    cpu0, t0 = time.process_time(), time.perf_counter()
    if lib == "jieba":
        import jieba

        t1 = time.perf_counter()
        jieba.setLogLevel(logging.WARNING)

        def cut(s):
            return jieba.lcut(s, HMM=True)
    else:
        import rjieba

        t1 = time.perf_counter()

        def cut(s):
            return rjieba.cut(s, hmm=True)

    first = cut(SHORT)
    t2, cpu2 = time.perf_counter(), time.process_time()
    out = {
        "import_s": t1 - t0,
        "first_cut_s": t2 - t1,
        "total_s": t2 - t0,
        "total_cpu_s": cpu2 - cpu0,
        "first": first,
    }
    if rss_before is not None:
        out["peak_rss_mb"] = (_status_kb("VmHWM") - rss_before) / 1024
        out["held_rss_mb"] = (_status_kb("VmRSS") - rss_before) / 1024
    for name, sentence in (("warm_short_us", SHORT), ("warm_long_us", LONG)):
        times = []
        for _ in range(WARM_CALLS):
            a = time.perf_counter()
            cut(sentence)
            times.append(time.perf_counter() - a)
        out[name] = statistics.median(times) * 1e6
    print(json.dumps(out, ensure_ascii=False))


def installed(lib: str) -> str | None:
    """The library's version, or None when it cannot be imported (checked in a subprocess)."""
    code = f"import importlib.metadata as m; import {lib}; print(m.version({lib!r}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    return proc.stdout.strip() if proc.returncode == 0 else None


def run_variant(variant: str, cached_dir: str) -> dict:
    lib = "rjieba" if variant == "rjieba" else "jieba"
    with tempfile.TemporaryDirectory(prefix="bench_segmenter_") as empty_dir:
        env = dict(os.environ, TMPDIR=cached_dir if variant == "jieba, cached" else empty_dir)
        proc = subprocess.run(
            [sys.executable, "-m", "bench.bench_segmenter", "--child", lib],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"{variant}: {proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cell(values: list[float], fmt: str) -> str:
    med = statistics.median(values)
    return f"{med:{fmt}} [{min(values):{fmt}}–{max(values):{fmt}}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="repetitions of each variant (default 7)")
    parser.add_argument("--child", choices=("jieba", "rjieba"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    versions = {lib: installed(lib) for lib in ("jieba", "rjieba")}
    variants = [v for v in VARIANTS if versions["rjieba" if v == "rjieba" else "jieba"]]
    print(f"Python {sys.version.split()[0]}; " + ", ".join(f"{k} {v or 'not installed'}" for k, v in versions.items()))
    if not variants:
        sys.exit("neither jieba nor rjieba is installed")
    results: dict[str, list[dict]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory(prefix="bench_segmenter_cache_") as cached_dir:
        if "jieba, cached" in variants:
            run_variant("jieba, cached", cached_dir)  # not counted: builds the dictionary, writes jieba.cache
            if not Path(cached_dir, "jieba.cache").is_file():
                sys.exit(f"jieba wrote no jieba.cache into {cached_dir}")
        for r in range(args.rounds):
            order = variants[r % len(variants) :] + variants[: r % len(variants)]
            for variant in order:
                results[variant].append(run_variant(variant, cached_dir))
            print(f"  round {r + 1}/{args.rounds} done", file=sys.stderr)

    cuts = {v: rows[0]["first"] for v, rows in results.items()}
    print(f"first cut of {SHORT!r}: " + "; ".join(f"{v}: {' / '.join(c)}" for v, c in cuts.items()))
    columns = [
        ("import (s)", "import_s", ".3f"),
        ("first cut (s)", "first_cut_s", ".3f"),
        ("import + first cut (s)", "total_s", ".3f"),
        ("… CPU (s)", "total_cpu_s", ".3f"),
        ("warm cut, 8 chars (µs)", "warm_short_us", ".0f"),
        ("warm cut, 240 chars (µs)", "warm_long_us", ".0f"),
        ("peak RSS growth (MB)", "peak_rss_mb", ".1f"),
        ("RSS held after (MB)", "held_rss_mb", ".1f"),
    ]
    print(f"\nmedian [min–max] over {args.rounds} fresh processes per variant, interleaved\n")
    print("| | " + " | ".join(variants) + " |")
    print("|---|" + "---|" * len(variants))
    for title, key, fmt in columns:
        if all(key in row for rows in results.values() for row in rows):
            print(f"| {title} | " + " | ".join(_cell([row[key] for row in results[v]], fmt) for v in variants) + " |")
    print(f"\n{machine()}")


if __name__ == "__main__":
    main()
