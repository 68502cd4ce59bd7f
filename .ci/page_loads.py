"""A page loads: Chromium opens Home and Attention matrices of an app someone else started.

    python .ci/page_loads.py http://127.0.0.1:8501/

For .ci/stock_debian.sh, whose app runs inside a Debian chroot (the same network): each page must
draw its title and, on the lesson page, the real model's weights table, with no exception on the
page and no request outside the app (tests/browser/test_offline_browser.py walks every page).
Exits 1 with what it saw otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import launch_browser, wait_for_app  # noqa: E402

CHECKS = [
    ("?lang=en", "h1", "Attention"),
    ("matrices?lang=en", "h1", "Attention matrices"),
]


def main(url: str) -> int:
    problems: list[str] = []
    with launch_browser() as browser:
        page = browser.new_page()
        outside: list[str] = []
        page.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith((url, "data:", "blob:"))
                else (outside.append(route.request.url), route.abort())[1]
            ),
        )
        for path, selector, text in CHECKS:
            page.goto(url + path)
            wait_for_app(page)
            title = page.locator(selector).first.inner_text()
            errors = page.locator('[data-testid="stException"]').count()
            print(f".ci/page_loads.py: {path}: title {title!r}, {errors} exceptions", flush=True)
            if text not in title or errors:
                problems.append(f"{path}: title {title!r}, {errors} exceptions")
        if page.locator("table").count() == 0:
            problems.append("matrices: no table of weights")
        if outside:
            problems.append(f"requests outside the app: {sorted(set(outside))}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
