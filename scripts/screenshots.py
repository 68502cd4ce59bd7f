"""Full-page screenshots of every page of the app, for the README and for looking at a change.

    python scripts/screenshots.py              # English, plus Chinese (?lang=zh) when the app has it
    python scripts/screenshots.py --out DIR    # somewhere else than docs/screenshots/
    python scripts/screenshots.py --widths 1400 1024 390 --pages matrices real_model --langs zh
        # every page at a projector's 1024 px and a phone's 390 px too (touch, 3x pixels for 390),
        # saved as <page>.<width>.png / <page>.<width>.zh.png beside the 1400 px ones
    python scripts/screenshots.py --params "w=random&d_k=8"   # extra URL parameters on every page
    python scripts/screenshots.py --color-scheme dark   # as a learner whose system theme is dark sees it

Starts its own server (the harness the browser tests use, harness/), drives Debian's Chromium
(/usr/bin/chromium, or $CHROMIUM_PATH) at 1400 px wide and saves docs/screenshots/<page>.png,
and <page>.zh.png for the Chinese UI. The pages are those of attention_ui.registry.PAGES, so a
new page is photographed without editing this file.
from attention_ui.internals import testid
A language the app does not offer yet is skipped with a note, not an error.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attention_ui.internals import testid  # noqa: E402
from attention_ui.registry import PAGES  # noqa: E402
from harness import VIEWPORT, js, launch_browser, streamlit_server, wait_for_app  # noqa: E402

# Extra query parameters per page, so each picture shows something worth seeing.
PAGE_PARAMS = {"step_by_step": "step=5"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def page_paths() -> list[str]:
    """The url paths of the app's pages (``registry.PAGES``; the first lives at ``/``)."""
    return ["" if entry is PAGES[0] else entry.id for entry in PAGES]


def shoot(page, url: str, out: Path, width: int = VIEWPORT["width"]) -> None:
    """Load ``url`` and save a full-page PNG; the viewport grows to the page's height.

    Streamlit scrolls inside its main element, not the document, so Playwright's
    full_page alone would cut the picture at the window's height.
    """
    page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
    page.goto(url)
    wait_for_app(page)
    height = page.evaluate(
        js("""() => Math.max(...['testid(stMain)', 'testid(stSidebarContent)'].map(selector => {
              const el = document.querySelector(selector);
              const closed = el && el.closest('testid(stSidebar)[data-collapsed="true"]');
              return el && !closed ? el.scrollHeight : 0;  // a closed sidebar (a phone's) takes no room
           }), window.innerHeight)""")
    )
    page.set_viewport_size({"width": width, "height": int(height)})
    wait_for_app(page)  # charts re-lay out to the new size
    page.screenshot(path=str(out), full_page=True)
    print(f"saved {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out} ({width}×{height})")


def has_chinese_ui(page) -> bool:
    """True when the page in front of us speaks Chinese (its title or sidebar)."""
    text = page.locator(testid("stSidebar")).inner_text() + page.locator("h1").first.inner_text()
    return bool(CJK.search(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--widths", type=int, nargs="+", default=[VIEWPORT["width"]], help="viewport widths in px")
    parser.add_argument("--pages", nargs="+", default=None, help="page ids (home for /); default: every page")
    parser.add_argument("--langs", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    parser.add_argument("--params", default="", help="extra URL parameters for every page, e.g. w=random")
    parser.add_argument(
        "--color-scheme", default="light", choices=["light", "dark"], help="the system theme Chromium reports"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    with streamlit_server() as server, launch_browser() as browser:
        for width in args.widths:
            phone = width < 600  # a phone: touch, a tall screen, sharp pixels
            context = browser.new_context(
                viewport={"width": width, "height": 844 if phone else VIEWPORT["height"]},
                device_scale_factor=2 if phone else 1,
                has_touch=phone,
                is_mobile=phone,
                color_scheme=args.color_scheme,
            )
            page = context.new_page()
            paths = page_paths()
            if args.pages:
                paths = [p for p in paths if (p or "home") in args.pages]
            suffix = "" if width == VIEWPORT["width"] else f".{width}"
            for lang in args.langs:
                for path in paths:
                    name = path or "home"
                    extra = (PAGE_PARAMS.get(path, ""), "" if lang == "en" else f"lang={lang}", args.params)
                    params = "&".join(p for p in extra if p)
                    url = server.url + path + (f"?{params}" if params else "")
                    if lang != "en":
                        page.goto(url)
                        wait_for_app(page)
                        if not has_chinese_ui(page):
                            print(f"skipped {lang}: the app shows no {lang} UI for ?lang={lang} (on {name}) yet")
                            break
                    file = f"{name}{suffix}.png" if lang == "en" else f"{name}{suffix}.{lang}.png"
                    shoot(page, url, args.out / file, width)
            context.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
