"""Memory of the model's weights: peak RSS after loading a model and encoding one sentence.

``model_files.read_tensors`` maps model.safetensors and hands the embedding tables to the encoder
as read-only views of the file (``numpy.memmap``): a row of the word table costs memory only when a
sentence uses it. The matrices of the layers are read into memory (transposed once, as before),
since every sentence uses all of them. This script measures what that saves, each figure in a
fresh process (``python -c``) that imports the core, loads the model and encodes one sentence:

* the bundled all-MiniLM-L6-v2 (30 522 × 384 word table, 90 MB file);
* a synthetic model the size of paraphrase-multilingual-MiniLM-L12-v2 (250 002 × 384 word table,
  12 layers; about 470 MB), written to a temporary directory with random weights and the bundled
  tokenizer (so a sentence touches only rows below 30 522), deleted afterwards.

Each model is measured with the weights mapped (the app's reading) and read whole into memory
(``--in-memory`` reading: every tensor copied, as the encoder read them before it mapped the
file). ``--code DIR`` measures another checkout's ``attention_core`` (its own reading only).

    python -m bench.bench_mmap            # both models, both readings
    python -m bench.bench_mmap --no-synthetic

Figures: VmHWM (peak resident), VmRSS, RssAnon (private memory: what the process really holds)
and RssFile (pages of mapped files: shared with the page cache, dropped by the kernel when memory
is short and read again on the next use), in MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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

mode, directory, sentence = sys.argv[1], sys.argv[2], sys.argv[3]
import numpy as np
from attention_core import encoder, model_files
before = status()
if mode == "in-memory":
    if not hasattr(model_files, "read_tensors") or "in_memory" not in model_files.read_tensors.__code__.co_varnames:
        raise SystemExit("this checkout has no in_memory reading: measure it with --reading mapped")
    original = model_files.read_tensors
    try:  # the module that reads the weights into an Encoder
        from attention_core import encoder_files as reader
    except ImportError:  # a checkout from before it: the encoder read them itself
        reader = encoder
    reader.read_tensors = lambda d, keep=lambda n: True, in_memory=None: original(d, keep, in_memory=lambda n: True)
start = time.perf_counter()
enc = encoder.load_encoder(directory)
loaded_s = time.perf_counter() - start
loaded = status()
trace = encoder.encode(sentence, name=directory)
assert np.isfinite(trace.hidden).all()
encoded = status()
print(json.dumps({"before": before, "loaded": loaded, "encoded": encoded, "load_s": loaded_s,
                  "vocab": int(enc.word.shape[0]), "mapped": type(enc.word).__name__}))
"""


def measure(directory: Path, reading: str, code: Path) -> dict:
    """One fresh process: import, load ``directory`` with ``reading``, encode one sentence."""
    env = dict(os.environ, PYTHONPATH=str(code), HF_HUB_OFFLINE="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, reading, str(directory), SENTENCE],
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


def row(label: str, reading: str, found: dict) -> list:
    e, b = found["encoded"], found["before"]
    return [
        label,
        reading,
        e["VmHWM"] / MIB,
        (e["VmHWM"] - b["VmRSS"]) / MIB,
        e["VmRSS"] / MIB,
        e["RssAnon"] / MIB,
        e["RssFile"] / MIB,
        found["load_s"],
        found["mapped"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-synthetic", action="store_true", help="only the bundled model")
    parser.add_argument("--reading", choices=("both", "mapped", "in-memory"), default="both")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose attention_core is measured")
    args = parser.parse_args()
    readings = ("mapped", "in-memory") if args.reading == "both" else (args.reading,)

    from attention_core.model_files import bundled_path

    rows = []
    for reading in readings:
        rows.append(row("bundled (30 522 × 384)", reading, measure(bundled_path(), reading, args.code)))
    if not args.no_synthetic:
        with tempfile.TemporaryDirectory(prefix="attention-lab-250k-") as tmp:
            model = synthetic_model(Path(tmp) / "model")
            size = (model / "model.safetensors").stat().st_size / MIB
            for reading in readings:
                rows.append(
                    row(f"synthetic (250 002 × 384, {size:.0f} MB)", reading, measure(model, reading, args.code))
                )
    print(machine())
    print(f"one process per figure: import attention_core, load the model, encode {SENTENCE!r}")
    print(
        table(
            ["model", "reading", "peak MB", "peak − import MB", "RSS MB", "anon MB", "file MB", "load s", "word table"],
            rows,
        )
    )


if __name__ == "__main__":
    main()
