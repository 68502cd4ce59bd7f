"""The core's place in the architecture, and its doctests.

* ``import attention_core`` in a fresh interpreter loads none of the UI or model stacks
  (streamlit, plotly, torch, transformers, sentence_transformers) — nor scipy: the core
  is NumPy only (docs/ARCHITECTURE.md, "The layers") — nor rjieba, whose import builds its
  dictionary: text.py imports it on the first cut into words.
* No module of the core imports streamlit or plotly anywhere, not even lazily.
* Every docstring example in the core runs and prints what it shows, as part of a plain
  ``pytest`` run.
* No import circle among the app's modules, imports inside functions included: each module
  stands on the ones it imports, never on one that needs it back.
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
CORE_MODULES = sorted(
    ".".join(p.relative_to(CORE).with_suffix("").parts) for p in CORE.rglob("*.py") if p.stem != "__init__"
)
"""The core's modules below ``attention_core``, dotted: ``encoder``, ``learning.training``."""
CORE_PACKAGES = sorted(".".join(p.parent.relative_to(CORE).parts) for p in CORE.rglob("*/__init__.py"))
"""The core's subpackages, dotted (their ``__init__`` re-exports their modules' names)."""


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


@pytest.mark.parametrize("module", CORE_MODULES + [f"{p}.__init__" for p in CORE_PACKAGES] + ["__init__"])
def test_no_streamlit_or_plotly_import_anywhere_in_the_core(module):
    tree = ast.parse((CORE / f"{module.replace('.', '/')}.py").read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in NEVER_IN_CORE]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in NEVER_IN_CORE:
                found.append(node.module)
    assert not found, f"attention_core/{module}.py imports {found}"


# --------------------------------------------------------------------------- import circles

APP_PACKAGES = ("attention_core", "attention_ui", "classroom", "pages", "harness")


def _module_files() -> dict[str, Path]:
    """Every module of the app's packages by its dotted name (a package by its own name)."""
    found = {}
    for package in APP_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    found["app"] = ROOT / "app.py"
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The app modules that ``name`` imports anywhere in its file: at the top, inside a function,
    under ``if TYPE_CHECKING``. ``from package import module`` counts as the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]  # a name defined in a module: the module
            if target and target != name:
                found.add(target)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_import_circle_among_the_app_modules():
    modules = _module_files()
    graph = {name: _imported(name, path, modules) for name, path in modules.items()}
    assert len(graph) > 100 and graph["attention_core.encoder"], "the walk found the modules and their imports"
    assert _circles(graph) == []


def test_the_circle_finder_sees_a_circle_closed_inside_a_function(tmp_path):
    """Guard against a vacuous check: a circle closed by an import in a function body is found."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    probe = tmp_path / "x.py"
    probe.write_text("from . import y\n\n\ndef f():\n    from .z import g  # closes a circle\n", encoding="utf-8")
    modules = {"pkg": tmp_path / "__init__.py", "pkg.x": probe, "pkg.y": tmp_path / "y.py", "pkg.z": tmp_path / "z.py"}
    assert _imported("pkg.x", probe, modules) == {"pkg.y", "pkg.z"}


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


@pytest.mark.parametrize("module", ["attention_core"] + [f"attention_core.{m}" for m in CORE_PACKAGES + CORE_MODULES])
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
    for path in (ROOT / "attention_ui" / "steps.py", *(CORE / "exercises").glob("*.py")):
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
