"""Our NumPy encoder against the same model in transformers (PyTorch), side by side in one run.

    python -m bench.bench_encoder              # one thread each (the target's condition)
    python -m bench.bench_encoder --threads 2  # both libraries on two threads

What is timed, for the first 8, 24 and 100 word pieces of one text (plus [CLS] and [SEP]):

* ``encode`` — ``attention_core.encoder.encode`` with its cache cleared before each call: the
  tokenizer, the embeddings, 6 layers (each head through our ``scaled_dot_product_attention``),
  mean pooling; every hidden state and every attention weight kept;
* ``torch`` — transformers' ``BertModel`` on the same ids, eager attention, hidden states and
  attentions returned (``output_hidden_states``, ``output_attentions``), under inference_mode.

The two are interleaved (ours, torch, ours, …) after one warm-up call each, so background load
hits both alike; medians and p90 over ``--reps`` calls. Then, in fresh processes, the cost of
getting the model ready: reading it with ``load_encoder`` (NumPy, safetensors, tokenizers)
against ``SentenceTransformer(path)`` with torch imported, as wall time and the process's
RSS afterwards. The script prints; it never asserts a time.
"""

from __future__ import annotations

import os
import sys

if "--threads" in sys.argv:
    _n = sys.argv[sys.argv.index("--threads") + 1]
else:
    _n = "1"
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = _n
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from bench.core import ROOT, machine, percentile  # noqa: E402

TEXT = " ".join(["The animal didn't cross the busy street last night because it was far too tired."] * 8)
PIECES = (8, 24, 100)  # the first n word pieces of TEXT (24 is the lessons' cut)

LOAD_OURS = """
import json, time, sys
t = time.perf_counter()
from attention_core.encoder import load_encoder
load_encoder()
elapsed = time.perf_counter() - t
rss = int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) / 1024
print(json.dumps({'seconds': elapsed, 'rss_mb': rss, 'torch': 'torch' in sys.modules}))
"""
LOAD_TORCH = """
import json, time, sys
t = time.perf_counter()
import torch
from sentence_transformers import SentenceTransformer
from attention_core.model_files import bundled_path
SentenceTransformer(str(bundled_path()), device='cpu')
elapsed = time.perf_counter() - t
rss = int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) / 1024
print(json.dumps({'seconds': elapsed, 'rss_mb': rss, 'torch': 'torch' in sys.modules}))
"""


def time_forward(reps: int) -> None:
    import torch
    from transformers import BertModel

    from attention_core import encoder
    from attention_core.encoder_files import tokenize
    from attention_core.model_files import bundled_path

    torch.set_num_threads(int(_n))
    bert = BertModel.from_pretrained(str(bundled_path()), attn_implementation="eager").eval()
    enc = encoder.load_encoder()
    print(f"threads: {_n} (BLAS and torch)   reps: {reps}")
    head = f"{'pieces':>6}  {'T':>4}  {'ours median':>11}  {'ours p90':>9}  {'torch median':>12}  {'torch p90':>9}"
    print(head + "  ratio")
    for n in PIECES:
        tokens, ids, _ = tokenize(enc, TEXT, max_pieces=n)
        assert len(tokens) - 2 == n, (n, len(tokens) - 2)
        input_ids = torch.tensor([ids.tolist()])

        def ours(n=n):
            encoder._encode_cached.cache_clear()
            encoder.encode(TEXT, max_pieces=n)

        def theirs(input_ids=input_ids):
            with torch.inference_mode():
                bert(input_ids=input_ids, output_hidden_states=True, output_attentions=True)

        ours(), theirs()  # warm-up
        a, b = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            ours()
            a.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            theirs()
            b.append(time.perf_counter() - t0)
        ma, mb = statistics.median(a) * 1e3, statistics.median(b) * 1e3
        print(
            f"{n:>6}  {n + 2:>4}  {ma:>9.1f} ms  {percentile(a, 90) * 1e3:>6.1f} ms  {mb:>10.1f} ms  "
            f"{percentile(b, 90) * 1e3:>6.1f} ms  {ma / mb:.2f}x"
        )


def time_load(runs: int) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    results: dict[str, list[dict]] = {"ours": [], "torch": []}
    for _ in range(runs):
        for name, code in (("ours", LOAD_OURS), ("torch", LOAD_TORCH)):
            out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(out.stderr)
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"\nready to run, fresh process, {runs} runs each (median):")
    for name, label in (("ours", "load_encoder (NumPy)"), ("torch", "SentenceTransformer (torch)")):
        rows = results[name]
        seconds = statistics.median(r["seconds"] for r in rows)
        rss = statistics.median(r["rss_mb"] for r in rows)
        print(f"  {label:<30} {seconds:6.2f} s   RSS {rss:6.0f} MB   torch imported: {rows[0]['torch']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=30, help="timed calls per sentence and library (default 30)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS and torch threads (default 1)")
    ap.add_argument("--load-runs", type=int, default=3, help="fresh processes per loader (default 3)")
    args = ap.parse_args()
    print(f"{machine()}; numpy {np.__version__}")
    time_forward(args.reps)
    time_load(args.load_runs)


if __name__ == "__main__":
    main()
