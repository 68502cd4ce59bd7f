"""A learner's first tour of the app on a fresh server, in Chromium: how long the first visits
take, and how much memory the server holds once every page has been used.

    python -m bench.bench_pages                        # this checkout, 3 fresh servers
    python -m bench.bench_pages --baseline 0a24709     # and an older commit, side by side

What is measured, per fresh server (``streamlit run app.py``, the bundled model, no toy):

1. ``matrices``: the first request is /matrices?sentence=…; time from ``page.goto`` until the
   script is idle and every chart is drawn (it includes reading the model);
2. ``real_model``: then a click on "Real model heads" in the sidebar, as a learner would; time
   from the click until the page is idle with its 72-head grid drawn;
3. then every other page of the sidebar, one click each (not timed);
4. the server's memory afterwards: RSS of its process tree two seconds after the last page,
   and its peak (VmHWM); and whether it has mapped libtorch (/proc/<pid>/maps).

With ``--baseline REV`` the same tour runs on a temporary ``git worktree`` of REV, alternating
with this checkout run by run (so background load hits both alike), and the worktree is removed
afterwards. Medians over ``--runs``. The script prints; it never asserts a time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

from bench.core import (
    MIB,
    ROOT,
    VIEWPORT,
    chromium,
    streamlit_server,
    tree_hwm_bytes,
    tree_pids,
    tree_rss_bytes,
    wait_idle,
)
from harness import js, testid

SENTENCE = "The animal didn't cross the street because it was too tired"


def torch_mapped(pid: int) -> bool:
    for p in tree_pids(pid):
        with contextlib.suppress(OSError):
            if "libtorch" in Path(f"/proc/{p}/maps").read_text():
                return True
    return False


def sidebar_link(page, path: str):
    """The sidebar's link to page ``path`` (hrefs are relative: "matrices?lang=en", "?lang=en" for Home)."""
    start = f"{path}?" if path else "?"
    return page.locator(f'{testid("stSidebar")} {testid("stPageLink")} a[href^="{start}"]').first


def tour(browser, directory: Path) -> dict:
    with streamlit_server(cwd=directory, name="pages") as server:
        url, pid = server.url, server.pid
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.set_default_timeout(180_000)
        t0 = time.perf_counter()
        page.goto(url + "matrices?sentence=" + urllib.parse.quote(SENTENCE))
        wait_idle(page, 180, settle=0.3)
        matrices = time.perf_counter() - t0
        t0 = time.perf_counter()
        sidebar_link(page, "real_model").click()
        page.wait_for_url("**/real_model**")
        wait_idle(page, 180, settle=0.3)
        real_model = time.perf_counter() - t0
        hrefs = page.evaluate(
            js("""() => [...document.querySelectorAll('testid(stSidebar) testid(stPageLink) a')]
                      .map(a => a.getAttribute('href'))""")
        )
        for href in hrefs:
            path = urllib.parse.urlparse(href).path.strip("/")
            if path in ("matrices", "real_model"):
                continue
            sidebar_link(page, path).click()
            wait_idle(page, 180, settle=0.3)
        time.sleep(2.0)
        result = {
            "matrices": matrices,
            "real_model": real_model,
            "rss": tree_rss_bytes(pid) / MIB,
            "peak": tree_hwm_bytes(pid) / MIB,
            "torch": torch_mapped(pid),
            "pages": len(hrefs),
        }
        context.close()
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="fresh servers per checkout (default 3)")
    ap.add_argument("--baseline", default=None, help="a git revision to run side by side (temporary worktree)")
    args = ap.parse_args()
    apps = {"this checkout": ROOT}
    worktree = None
    if args.baseline:
        worktree = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.baseline], cwd=ROOT, check=True)
        apps[f"baseline {args.baseline}"] = worktree
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; sentence: {SENTENCE!r}")
    results: dict[str, list[dict]] = {name: [] for name in apps}
    try:
        with chromium() as browser:
            for run in range(args.runs):
                for name, directory in apps.items():
                    r = tour(browser, directory)
                    results[name].append(r)
                    print(
                        f"run {run + 1} {name}: matrices {r['matrices']:.2f} s, real_model {r['real_model']:.2f} s, "
                        f"RSS {r['rss']:.0f} MB (peak {r['peak']:.0f}), libtorch mapped: {r['torch']}",
                        flush=True,
                    )
    finally:
        if worktree is not None:
            subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
    print(f"\nmedians over {args.runs} fresh servers each:")
    print(
        f"{'':<22} {'matrices 1st':>12} {'real_model 1st':>15} {'ratio':>6} {'RSS after all':>14} {'peak':>6}  libtorch"
    )
    for name, rows in results.items():
        m = statistics.median(r["matrices"] for r in rows)
        rm = statistics.median(r["real_model"] for r in rows)
        rss = statistics.median(r["rss"] for r in rows)
        peak = statistics.median(r["peak"] for r in rows)
        torch = sorted({r["torch"] for r in rows})
        print(f"{name:<22} {m:>10.2f} s {rm:>13.2f} s {rm / m:>5.2f}x {rss:>11.0f} MB {peak:>5.0f}  {torch}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
