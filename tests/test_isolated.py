"""The PyTorch checks run in a child process: the server never imports torch (attention_core.isolated)."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from attention_core.isolated import checks_enabled, run_isolated, torch_installed
from tests.helpers import ROOT

CHILD_CHECK = """
import sys
from attention_core.encoder import encode
from attention_core.model_reference import compare
from attention_core.reference import compare_with_torch
from attention_core import scaled_dot_product_attention
import numpy as np
trace = encode("The boy thanked the girl because she had helped him")
found = compare(trace)
rng = np.random.default_rng(0)
small = compare_with_torch(scaled_dot_product_attention(*(rng.normal(size=(4, 3)) for _ in range(3))))
# VmHWM: this process's peak since exec (ru_maxrss would count the forked pytest's memory too)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(found.weights, small.largest, "torch" in sys.modules, peak_kb)
"""


@pytest.mark.skipif(not torch_installed(), reason="the lean install has no PyTorch")
def test_the_checks_give_the_models_numbers_without_torch_in_this_process():
    out = subprocess.run(
        [sys.executable, "-c", CHILD_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=600, check=True
    ).stdout.split()
    weights, small, torch_here, peak_kb = float(out[0]), float(out[1]), out[2], int(out[3])
    assert weights < 1e-5 and small < 1e-12
    assert torch_here == "False", "the process that asked for the check imported torch"
    assert peak_kb < 500_000, f"the asking process peaked at {peak_kb / 1000:.0f} MB: torch or the model came in"


def test_a_child_failure_reaches_the_caller():
    with pytest.raises(ZeroDivisionError):
        run_isolated("operator", "truediv", 1, 0)


def test_the_checks_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "off")
    assert not checks_enabled()
    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "on")
    assert checks_enabled()


def test_without_torch_the_model_check_says_so(monkeypatch):
    from attention_core import model_reference
    from attention_core.encoder import encode
    from attention_core.model_files import ModelUnavailable

    monkeypatch.setattr(model_reference, "torch_installed", lambda: False)
    with pytest.raises(ModelUnavailable) as err:
        model_reference.compare(encode("the cat sat"))
    assert err.value.reason == "no_torch"


@pytest.mark.parametrize("page", ["pages/real_model.py", "pages/code.py"])
def test_switched_off_the_buttons_are_gone_and_the_page_says_why(monkeypatch, page):
    from attention_ui.i18n import translate
    from tests.helpers import open_link

    monkeypatch.setenv("ATTENTION_LAB_PYTORCH_CHECKS", "off")
    at = open_link(page, toy="false", sentence="the cat sat")
    assert not [b for b in at.button if b.key in ("torch_check", "code_torch_button")]
    assert translate("en", "shell.checks_off") in [c.value for c in at.caption]


def test_the_child_does_not_run_the_script_that_asked(tmp_path, monkeypatch):
    """Streamlit (and AppTest) make the page script of the latest run ``__main__``; a spawn child
    runs ``__main__``'s file before anything else. It must not: here that file fails at once."""
    script = tmp_path / "page.py"
    script.write_text("raise SystemExit('the page ran again in the child')\n")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    assert run_isolated("math", "factorial", 5) == 120
    assert sys.modules["__main__"] is page  # given back after the child started
