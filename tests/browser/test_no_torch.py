"""The server teaches with our NumPy encoder alone: after every page has been used in Chromium,
the server process has not mapped libtorch (nor imported sentence-transformers).

Only the Real model heads page's "Check against PyTorch" loads torch, and this test never
presses it. The check reads /proc/<server pid>/maps, the shared libraries the process holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.harness import no_exception, streamlit_server, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


def mapped_libraries(pid: int) -> set[str]:
    """The file names of every library the process has mapped (from /proc/<pid>/maps)."""
    names = set()
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/"):
            names.add(Path(parts[5]).name)
    return names


def test_every_page_runs_without_mapping_libtorch(chromium):
    with streamlit_server() as server:
        context = chromium.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(server.url)
        wait_for_app(page)
        links = page.locator('[data-testid="stSidebar"] [data-testid="stPageLink"] a')
        hrefs = [links.nth(n).get_attribute("href") for n in range(links.count())]
        assert len(hrefs) >= 10, hrefs
        for href in hrefs:  # every page on the real model and a trained head, then random and identity W
            path = href.split("?", 1)[0].replace(server.url, "").strip("/")
            for query in ("", "?w=random", "?w=identity"):
                page.goto(server.url + path + query)
                wait_for_app(page)
                no_exception(page)
        libraries = mapped_libraries(server.process.pid)
        context.close()
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
