"""Memory and load time of the model's weights: this checkout against another, side by side.

``model_files.read_weights`` reads model.safetensors once, whole, hashing it as it goes, into
arrays in memory: the bytes checked are the bytes used, and no mapping of a file that could be
cut short is ever touched (issue 44). Before (2026-12-08, e1f5a6a) the file was memory-mapped and
the word table stayed there, its rows read with ``pread``: cheaper in memory, but the rows a
lesson read could be bytes written over the file after its check. This script measures what the
new reading costs, each figure in a fresh process (``python -c``) that imports the core, loads
the model and encodes one sentence:

* the bundled all-MiniLM-L6-v2 (30 522 × 384 word table, 90 MB file, its hash known: checked);
* a synthetic model the size of paraphrase-multilingual-MiniLM-L12-v2 (250 002 × 384 word table,
  12 layers; about 470 MB, no known hash), written to a temporary directory with random weights
  and the bundled tokenizer (so a sentence touches only rows below 30 522), deleted afterwards.

Each model is measured with this checkout's ``attention_core`` and the reference's
(``--reference DIR``: another checkout, e.g. ``git archive e1f5a6a | tar -x -C DIR``), in turns,
``--repeats`` times, after one untimed reading that puts the file in the page cache.

    python -m bench.bench_mmap --reference /tmp/before
    python -m bench.bench_mmap --no-synthetic

Figures (medians): VmHWM (peak resident), VmRSS, RssAnon (private memory: what the process
really holds) and RssFile (pages of mapped files: shared with the page cache), in MB; the load
(``load_encoder``) in seconds, and CPU seconds of the whole process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.core import MIB, ROOT, machine, table

SENTENCE = "The cat sat on the mat because it was tired."

CHILD = r"""
import json, os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

def status():
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                fields[key] = int(rest.split()[0]) * 1024
    return fields

directory, sentence = sys.argv[1], sys.argv[2]
import numpy as np
from attention_core import encoder
before = status()
start = time.perf_counter()
enc = encoder.load_encoder(directory)
loaded_s = time.perf_counter() - start
loaded = status()
trace = encoder.encode(sentence, name=directory)
assert np.isfinite(trace.hidden).all()
encoded = status()
cpu = os.times()
print(json.dumps({"before": before, "loaded": loaded, "encoded": encoded, "load_s": loaded_s,
                  "cpu_s": cpu.user + cpu.system, "vocab": int(enc.word.shape[0]),
                  "word table": type(enc.word).__name__}))
"""


def measure(directory: Path, code: Path) -> dict:
    """One fresh process: import ``code``'s core, load ``directory``, encode one sentence."""
    env = dict(os.environ, PYTHONPATH=str(code), HF_HUB_OFFLINE="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(directory), SENTENCE],
        env=env,
        cwd=code,  # `python -c` puts the working directory first on sys.path: the measured checkout's core
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"the measuring process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def synthetic_model(root: Path, vocab: int = 250_002, layers: int = 12) -> Path:
    """A BERT directory the size of paraphrase-multilingual-MiniLM-L12-v2, random weights, written
    by the safetensors package itself; the bundled tokenizer.json (ids below 30 522)."""
    import numpy as np
    from safetensors.numpy import save_file

    from attention_core.model_files import bundled_path
    from harness.random_bert import bert_tensors

    d, ff = 384, 1536
    rng = np.random.default_rng(0)

    def normal(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float32)

    tensors = bert_tensors(normal, vocab=vocab, d=d, d_ff=ff, layers=layers, positions=512)
    root.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(root / "model.safetensors"))
    config = json.loads((bundled_path() / "config.json").read_text())
    config.update(vocab_size=vocab, num_hidden_layers=layers)
    (root / "config.json").write_text(json.dumps(config))
    shutil.copy(bundled_path() / "tokenizer.json", root / "tokenizer.json")
    return root


def row(label: str, checkout: str, runs: list[dict]) -> list:
    """Medians over ``runs`` of one model and one checkout."""

    def median(get) -> float:
        return statistics.median(get(run) for run in runs)

    return [
        label,
        checkout,
        median(lambda r: r["encoded"]["VmHWM"] / MIB),
        median(lambda r: (r["encoded"]["VmHWM"] - r["before"]["VmRSS"]) / MIB),
        median(lambda r: r["encoded"]["VmRSS"] / MIB),
        median(lambda r: r["encoded"]["RssAnon"] / MIB),
        median(lambda r: r["encoded"]["RssFile"] / MIB),
        median(lambda r: r["load_s"]),
        median(lambda r: r["cpu_s"]),
        runs[0]["word table"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-synthetic", action="store_true", help="only the bundled model")
    parser.add_argument("--reference", type=Path, help="another checkout, measured beside this one")
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per model and checkout")
    args = parser.parse_args()
    checkouts = {
        "this checkout": ROOT,
        **({f"reference {args.reference.name}": args.reference} if args.reference else {}),
    }

    from attention_core.model_files import WEIGHTS_FILE, bundled_path

    def measured(label: str, model: Path) -> list[list]:
        (model / WEIGHTS_FILE).read_bytes()  # in the page cache for every reading alike
        runs: dict[str, list[dict]] = {name: [] for name in checkouts}
        for _ in range(args.repeats):
            for name, code in checkouts.items():  # in turns: drift of the machine's load hits both
                runs[name].append(measure(model, code))
        return [row(label, name, found) for name, found in runs.items()]

    rows = measured("bundled (30 522 × 384)", bundled_path())
    if not args.no_synthetic:
        with tempfile.TemporaryDirectory(prefix="attention-lab-250k-") as tmp:
            model = synthetic_model(Path(tmp) / "model")
            size = (model / WEIGHTS_FILE).stat().st_size / MIB
            rows += measured(f"synthetic (250 002 × 384, {size:.0f} MB)", model)
    print(machine())
    print(
        f"one process per figure, medians of {args.repeats}: import attention_core, load the model, encode {SENTENCE!r}"
    )
    print(
        table(
            [
                "model",
                "core",
                "peak MB",
                "peak − import MB",
                "RSS MB",
                "anon MB",
                "file MB",
                "load s",
                "CPU s",
                "word table",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
