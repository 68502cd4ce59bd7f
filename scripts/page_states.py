"""Capture what every page shows over a fixed set of page states, and compare two captures.

A refactoring should change no chart and no text. Run ``capture`` on the tree before the
change and after it, then ``diff``: it lists every element (Plotly figure, title, Markdown,
LaTeX, caption, code block, table, widget) that differs, per page state, and sums up by page
and kind of element.

    git stash && python scripts/page_states.py capture /tmp/before.jsonl && git stash pop
    python scripts/page_states.py capture /tmp/after.jsonl
    python scripts/page_states.py diff /tmp/before.jsonl /tmp/after.jsonl

The states (~120, about a minute on two cores) are every page in English and Chinese, every
step of the step-by-step page, every tab of the matrices page, random and identity W and the
old ``?identity=true`` link, a Chinese and a long sentence, every exercise kind, and hand-typed
values out of range. Each state opens the page straight from its link, as AppTest does.

Three things differ between runs of the same tree and are left out of the comparison: the
widgets' internal ids (a hash Streamlit computes), the random id of a styled table and the random
file id of a download button whose file is made when clicked.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")

CHINESE = "我爱我的猫因为它很可爱"
LONG = " ".join(["the quick brown fox jumps over the lazy dog"] * 8)


def states() -> list[tuple[str, dict[str, str]]]:
    """(page id, URL parameters) for every state captured."""
    from attention_ui.registry import PAGES

    out = [(page, {"lang": lang}) for lang in ("en", "zh") for page in [entry.id for entry in PAGES]]
    for step in range(7):
        out.append(("step_by_step", {"step": str(step)}))
        out.append(("step_by_step", {"step": str(step), "toy": "true", "w": "random", "token": "2"}))
        out.append(("step_by_step", {"step": str(step), "w": "identity", "lang": "zh"}))
    for tab in ("qkv", "scores", "scaled", "weights", "outputs"):
        out.append(("matrices", {"matrix": tab}))
        out.append(("matrices", {"matrix": tab, "w": "random", "scaled": "false"}))
    for page in ("step_by_step", "matrices", "similarity", "cross_attention", "multi_head", "exercises", "code"):
        out.append((page, {"w": "random", "d_k": "6", "seed": "3", "positional": "false"}))
        out.append((page, {"w": "identity"}))
        out.append((page, {"identity": "true", "toy": "true"}))
    for page in ("step_by_step", "matrices", "real_model", "exercises", "code", "similarity"):
        out.append((page, {"sentence": CHINESE}))
        out.append((page, {"sentence": CHINESE, "toy": "true", "cjk": "words", "lang": "zh"}))
        out.append((page, {"sentence": LONG}))
    for kind in ("attend", "by_hand", "order", "no_scaling"):
        for lang in ("en", "zh"):
            out.append(("exercises", {"ex_kind": kind, "ex_seed": "7", "lang": lang}))
    out += [
        ("exercises", {"ex_kind": "attend", "ex_source": "generated"}),
        ("tailor_shop", {"want_cut": "womens", "match": "cosine", "sharpness": "5", "imp_cut": "3.5"}),
        ("tailor_shop", {"want_pattern": "any", "sharpness": "0"}),
        ("similarity", {"vectors": "inputs", "sim_token": "1"}),
        ("similarity", {"q_angle": "90", "k_length": "2.5"}),
        ("multi_head", {"heads": "3", "causal": "false"}),
        ("multi_head", {"heads": "1"}),
        ("cross_attention", {"swap": "true"}),
        ("intuition", {"eye_x": "10", "eye_y": "20", "eye_r": "100"}),
        ("why_scaling", {"exp_d_k": "256"}),
        ("real_model", {"layer": "0", "head": "3", "model_token": "4"}),
        ("real_model", {"layer": "9", "head": "x"}),
        ("step_by_step", {"token": "999", "step": "abc"}),
        ("matrices", {"matrix": "nonsense", "present": "true"}),
        ("code", {"token": "3", "scaled": "false"}),
    ]
    return out


def _elements(node, path: str, out: list) -> None:
    """Every element under ``node`` as [path, kind, content]: a figure's Plotly JSON as a dict,
    anything else as its protobuf text."""
    proto = getattr(node, "proto", None)
    if proto is not None and type(node).__name__ not in ("Block", "ElementTree"):
        if getattr(node, "type", "") == "plotly_chart":
            out.append([path, "plotly", json.loads(proto.spec)])
        else:
            out.append([path, type(node).__name__, str(proto)])
    children = getattr(node, "children", None) or {}
    for key in sorted(children):
        _elements(children[key], f"{path}/{key}", out)


def capture(target: str) -> None:
    """Open every state in AppTest and write one JSON line per state to ``target``."""
    from streamlit.testing.v1 import AppTest

    todo = states()
    with open(target, "w", encoding="utf-8") as fh:
        for n, (page, params) in enumerate(todo, start=1):
            at = AppTest.from_file(APP, default_timeout=300)
            at.switch_page(f"pages/{page}.py")
            for name, value in params.items():
                at.query_params[name] = value
            at.run()
            found: list = []
            _elements(at._tree, "", found)
            failed = [str(e.value) for e in at.exception]
            line = {"page": page, "params": params, "elements": found, "exception": failed}
            fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            print(f"{n}/{len(todo)} {page} {params}", file=sys.stderr)


_WIDGET_ID = re.compile(r"\$\$ID-[0-9a-f]{32}-")
_STYLER_ID = re.compile(r'uuid: \\*"([0-9a-f]{5})\\*"')
_DEFERRED_FILE_ID = re.compile(r'deferred_file_id: \\*"[0-9a-f]{32}\\*"')


def _steady(content):
    """``content`` without what differs between two runs of the same tree."""
    if not isinstance(content, str):
        return content
    content = _WIDGET_ID.sub("$$ID-", content)
    content = _DEFERRED_FILE_ID.sub("deferred_file_id: FILE", content)
    for uuid in set(_STYLER_ID.findall(content)):
        content = content.replace(uuid, "UUID")
    return content


def diff(before: str, after: str, shown: int = 3) -> int:
    """Print what differs between two captures; return how many states differ."""
    read = lambda path: [json.loads(line) for line in open(path, encoding="utf-8")]  # noqa: E731
    kinds: Counter = Counter()
    changed = 0
    for a, b in zip(read(before), read(after), strict=True):
        if (a["page"], a["params"]) != (b["page"], b["params"]):
            raise SystemExit("the two captures hold different states: capture both with this script")
        old = {path: (kind, _steady(value)) for path, kind, value in a["elements"]}
        new = {path: (kind, _steady(value)) for path, kind, value in b["elements"]}
        paths = sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))
        if a["exception"] != b["exception"]:
            paths.append("exception")
        if not paths:
            continue
        changed += 1
        print(f"{a['page']} {a['params']}: {len(paths)} elements differ")
        for path in paths:
            kinds[(a["page"], (old.get(path) or new.get(path) or ("exception",))[0])] += 1
        for path in paths[:shown]:
            x = json.dumps(old.get(path), ensure_ascii=False, sort_keys=True)
            y = json.dumps(new.get(path), ensure_ascii=False, sort_keys=True)
            at = next((n for n, (c, d) in enumerate(zip(x, y)) if c != d), min(len(x), len(y)))
            print(f"  {path}\n    before …{x[max(0, at - 80) : at + 80]}\n    after  …{y[max(0, at - 80) : at + 80]}")
    print(f"{changed} of {len(read(before))} states differ")
    for (page, kind), n in sorted(kinds.items()):
        print(f"  {page}: {n} × {kind}")
    return changed


def main() -> None:
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("capture").add_argument("out")
    compare = sub.add_parser("diff")
    compare.add_argument("before")
    compare.add_argument("after")
    compare.add_argument("--shown", type=int, default=3, help="differing elements printed per state")
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.out)
    else:
        diff(args.before, args.after, args.shown)


if __name__ == "__main__":
    main()
