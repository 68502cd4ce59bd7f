"""The server teaches with our NumPy encoder alone, as the default install runs it (no PyTorch, no
sentence-transformers: requirements.txt without requirements-check.txt). The server starts with both made unimportable;
every page, on the real model and its trained head, opens without an exception; "Check against
PyTorch" says that PyTorch is not installed here; and the server process has not mapped libtorch
(read from /proc/<server pid>/maps, the shared libraries it holds). Random and identity W run
every page with both unimportable in tests/test_faults.py (AppTest: the same page code, no
browser load for each).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from attention_ui.i18n import translate
from attention_ui.internals import testid
from harness import load_side_by_side, no_exception, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


def mapped_libraries(pid: int) -> set[str]:
    """The file names of every library the process has mapped (from /proc/<pid>/maps)."""
    names = set()
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/"):
            names.add(Path(parts[5]).name)
    return names


NO_TORCH = """
import sys
class _LeanInstall:  # what a machine without PyTorch and sentence-transformers answers
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "sentence_transformers", "transformers"):
            raise ModuleNotFoundError(f"No module named {name!r} (lean install)", name=name)
        return None
sys.meta_path.insert(0, _LeanInstall())
"""


def test_every_page_runs_without_torch(tab, tmp_path):
    (tmp_path / "sitecustomize.py").write_text(NO_TORCH)
    pythonpath = os.pathsep.join([str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])])
    with streamlit_server(env={"PYTHONPATH": pythonpath}) as server:
        tabs = [tab() for _ in range(3)]  # three pages load side by side
        page = tabs[0]
        page.goto(server.url)
        wait_for_app(page)
        links = page.locator(f"{testid('stSidebar')} {testid('stPageLink')} a")
        hrefs = [links.nth(n).get_attribute("href") for n in range(links.count())]
        assert len(hrefs) >= 10, hrefs
        opened = 0
        urls = [server.url + href.split("?", 1)[0].replace(server.url, "").strip("/") for href in hrefs]
        for shown, url in load_side_by_side(tabs, urls):  # three loads at a time, one a tab
            no_exception(shown)
            assert shown.url.split("?")[0] == url.split("?")[0], (shown.url, url)
            opened += 1
        assert opened == len(hrefs)
        page.goto(server.url + "real_model?lang=en")
        wait_for_app(page)
        page.get_by_role("button", name=re.compile("Check against PyTorch")).click()
        wait_for_app(page)
        no_exception(page)
        main = page.locator(testid("stMain")).inner_text()
        assert translate("en", "shell.problem_no_torch") in main, main[-600:]
        libraries = mapped_libraries(server.process.pid)
        for shown in tabs:
            shown.goto("about:blank")  # these sessions end before their server
    assert any("safetensors" in name or "tokenizers" in name for name in libraries), sorted(libraries)[:40]
    torch_libraries = sorted(name for name in libraries if "torch" in name)
    assert not torch_libraries, f"the server mapped {torch_libraries}"


def test_the_check_can_see_libtorch():
    """Guard against a vacuous check: a process that imports torch shows libtorch in its maps."""
    import subprocess
    import sys

    probe = subprocess.Popen(
        [sys.executable, "-c", "import torch, sys; print('ready', flush=True); sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert probe.stdout.readline().strip() == "ready"
        assert any("torch" in name for name in mapped_libraries(probe.pid))
    finally:
        probe.stdin.close()
        probe.wait(timeout=30)
