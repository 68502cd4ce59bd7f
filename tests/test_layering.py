"""The core's place in the architecture, and its doctests.

* ``import attention_core`` in a fresh interpreter loads none of the UI or model stacks
  (streamlit, plotly, torch, transformers, sentence_transformers) — nor scipy: the core
  is NumPy only (docs/ARCHITECTURE.md, "The layers") — nor rjieba, whose import builds its
  dictionary: text.py imports it on the first cut into words.
* No module of the core imports streamlit or plotly anywhere, not even lazily.
* Every docstring example in the core runs and prints what it shows, as part of a plain
  ``pytest`` run.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "attention_core"

HEAVY = ["streamlit", "plotly", "torch", "transformers", "sentence_transformers", "scipy", "rjieba"]
NEVER_IN_CORE = {"streamlit", "plotly"}
CORE_MODULES = sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")


def test_core_files_exist():
    for name in (
        "attention",
        "explain",
        "similarity",
        "projections",
        "positional",
        "masks",
        "multihead",
        "text",
        "embeddings",
    ):
        assert name in CORE_MODULES, name


def _fresh_import(statement: str) -> dict:
    code = (
        "import json, sys\n"
        f"{statement}\n"
        f"heavy = {HEAVY!r}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
        "print(json.dumps(loaded))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_attention_core_loads_no_heavy_package():
    loaded = _fresh_import("import attention_core")
    assert loaded == [], f"import attention_core pulled in {loaded}"


def test_the_check_itself_can_see_a_heavy_import():
    """Guard against a vacuous check: importing numpy's neighbour scipy is detected."""
    loaded = _fresh_import("import attention_core, scipy.special")
    assert "scipy" in loaded


@pytest.mark.parametrize("module", CORE_MODULES)
def test_each_core_module_alone_loads_no_heavy_package(module):
    loaded = _fresh_import(f"import attention_core.{module}")
    # model.py (the real model) may import torch lazily, inside its functions only
    assert loaded == [], f"import attention_core.{module} pulled in {loaded}"


@pytest.mark.parametrize("module", CORE_MODULES + ["__init__"])
def test_no_streamlit_or_plotly_import_anywhere_in_the_core(module):
    tree = ast.parse((CORE / f"{module}.py").read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in NEVER_IN_CORE]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in NEVER_IN_CORE:
                found.append(node.module)
    assert not found, f"attention_core/{module}.py imports {found}"


# --------------------------------------------------------------------------- doctests


def _run_doctests(module_name: str) -> tuple[int, int, str]:
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = io.StringIO()
    for test in finder.find(module, module_name, globs={}):
        test.globs = dict(module.__dict__)  # what pytest --doctest-modules would give
        runner.run(test, out=out.write)
    return runner.failures, runner.tries, out.getvalue()


@pytest.mark.parametrize("module", ["attention_core"] + [f"attention_core.{m}" for m in CORE_MODULES])
def test_doctests(module):
    failures, tries, report = _run_doctests(module)
    assert failures == 0, report


def _count_examples(module_name: str) -> int:
    """The doctest examples of a module, counted without running them (test_doctests runs them)."""
    module = importlib.import_module(module_name)
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module, module_name, globs={}))


def test_doctests_exist_for_the_core():
    counts = {m: _count_examples(f"attention_core.{m}") for m in CORE_MODULES}
    # every module of the core documents its public functions with examples
    assert all(counts.values()), f"core modules with no doctest example: {[m for m, n in counts.items() if not n]}"
    assert sum(counts.values()) >= 30


def test_the_count_of_examples_is_what_the_runner_tries():
    """_count_examples counts what a run tries (so the count above stands for examples that run)."""
    module = "attention_core.arrays" if "arrays" in CORE_MODULES else f"attention_core.{CORE_MODULES[0]}"
    assert _count_examples(module) == _run_doctests(module)[1] > 0


def test_one_freeze_helper():
    """Arrays are made read-only by attention_core.arrays.frozen only, not by hand."""
    files = [*CORE.glob("*.py"), *(ROOT / "attention_ui").glob("*.py"), *(ROOT / "pages").glob("*.py")]
    found = [
        str(path.relative_to(ROOT))
        for path in files
        if path.name != "arrays.py" and "writeable = False" in path.read_text(encoding="utf-8")
    ]
    assert not found, found


def test_one_list_of_steps():
    """The step-by-step page and the ordering exercise walk the same steps (attention_core.lesson.STEPS)."""
    from attention_core import exercises
    from attention_core.lesson import STEPS

    assert exercises.STEPS is STEPS
    for path in (ROOT / "attention_ui" / "steps.py", CORE / "exercises.py"):
        assert not any(line.startswith("STEPS =") for line in path.read_text(encoding="utf-8").splitlines())


def test_only_url_state_touches_the_query_params():
    """One module owns URL state: no page or other UI module reads or writes st.query_params."""
    offenders = []
    for path in sorted([*(ROOT / "pages").glob("*.py"), *(ROOT / "attention_ui").glob("*.py"), ROOT / "app.py"]):
        if path.name == "url_state.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "query_params":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders
    url_state = ast.parse((ROOT / "attention_ui" / "url_state.py").read_text(encoding="utf-8"))
    assert any(isinstance(n, ast.Attribute) and n.attr == "query_params" for n in ast.walk(url_state))  # it can see one
