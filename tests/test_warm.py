"""A server that warms itself at start (issue 43, item 6): ``python -m attention_ui.launch``
starts ``warm.warm_start`` before Streamlit's server, and the warm-up fills the caches a first
visit would otherwise fill while the learner waits. Each check runs in a fresh interpreter, as a
fresh server process starts. How long a first visit takes with and without it: bench/bench_warm.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from attention_ui import launch, warm

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys
from attention_ui.warm import DONE, STEPS, warm_start
from attention_core import encoder, heads

before = {"pages": "pages.matrices" in sys.modules, "encoders": encoder._encoder_cached.cache_info().currsize}
warm_start(wait=False).join()
from attention_ui import warm
hits = encoder._encode_cached.cache_info().hits
if "lesson" in DONE:
    warm._default_lesson()  # what a first visit of a lesson page asks for
print(json.dumps({
    "before": before,
    "done": sorted(DONE),
    "steps": [name for name, _ in STEPS],
    "pages": "pages.matrices" in sys.modules and "pages.exercises" in sys.modules,
    "encoders": encoder._encoder_cached.cache_info().currsize,
    "census": heads.census.cache_info().currsize,
    "lesson_cached": encoder._encode_cached.cache_info().hits > hits,
}))
"""


def probe(**env) -> dict:
    environment = {k: v for k, v in os.environ.items() if k != "ATTENTION_LAB_MODEL"} | env
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_warm_up_fills_what_a_first_visit_would_wait_for():
    found = probe()
    assert found["before"] == {"pages": False, "encoders": 0}  # a fresh process: nothing ready
    assert found["done"] == sorted(found["steps"]), found  # every step finished
    assert found["pages"] and found["encoders"] >= 1 and found["census"] >= 1, found
    assert found["lesson_cached"], "the default sentence's forward pass was not left in the encoder's cache"


def test_without_the_model_the_warm_up_skips_what_needs_it_and_warms_the_rest(tmp_path):
    found = probe(ATTENTION_LAB_MODEL=str(tmp_path / "no-model-here"), HF_HUB_OFFLINE="1")
    assert {"model", "census", "lesson"}.isdisjoint(found["done"]), found
    assert {"libraries", "app", "figures"} <= set(found["done"]) and found["pages"], found


def test_launch_starts_the_warm_up_before_the_server(monkeypatch):
    import streamlit.web.cli

    calls: list[str] = []
    monkeypatch.setattr(warm, "warm_start", lambda **kwargs: calls.append("warm"))
    monkeypatch.setattr(streamlit.web.cli, "main", lambda **kwargs: calls.append(f"streamlit {sys.argv[1:]}"))
    launch.main(["app.py", "--server.headless", "true"])
    assert calls == ["warm", "streamlit ['run', 'app.py', '--server.headless', 'true']"]


def test_the_warm_up_waits_for_no_server_longer_than_told():
    assert warm.wait_until_serving(0.5) is False  # no server in this process: it gives up, then warms
