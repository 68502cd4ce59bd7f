"""A class of 80 answers one question through ``deploy/serve.sh --processes 2``: every answer
counted once, the projector's bars right soon after the last one, and how long a phone waits.

    python -m bench.bench_class [--db sqlite postgresql] [--students 80] [--window 10]

For each database (SQLite in a temporary data folder; PostgreSQL on a throwaway server made
with Debian's initdb/pg_ctl, as the tests do):

1. serve.sh starts two app processes behind nginx, with ``ATTENTION_LAB_CLASS_DB`` pointing at
   the database and ``--base-url`` at itself.
   Each app process has shown one Exercises page first (``warm``), as before a lesson.
2. The teacher, in Chromium (1024 × 768, presentation mode), starts a class on the Class page
   and leaves the page open: its fragment redraws the bars every second.
3. ``--students`` phones, each a protocol client (bench/protocol.py: Streamlit's websocket
   as Chromium speaks it, through nginx, with its own cookies), open the class link at moments
   spread over the first ``window`` − 2 seconds, choose a key (key j of the question for
   student i is ``i % 3``: a known spread), and press Send; every tenth presses it twice (a
   double tap). Until the end each phone then sends its page's 2-second poll, as a phone's
   fragment does.
4. Measured: each phone's join (the page's first run) and submit (the run of its Send);
   whether all of it happened within ``window`` seconds; from the last Send's answer to the
   moment the teacher's page shows "80 joined · 80 answered" and every bar with its count and
   share (read from the page's own table); the store's counts against the expected ones
   (each answer exactly once, the double taps included).

Figures: docs/benchmarks.md ("A class answers together"). The machine has two cores, shared
with the browser and the clients: read the figures as an upper bound of a server's delay.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg

from bench.core import machine, percentile
from bench.protocol import Client
from tests.test_deploy import free_port_block, serve

POLL_SECONDS = 2.0


class Phone(Client):
    """A protocol client that also sends its page's timed fragment reruns (``run_every``) and,
    as the browser does, runs only the fragment of a button drawn inside one."""

    fragment: str = ""

    def _take(self, msg, answer, seen):
        kind = msg.WhichOneof("type")
        if kind == "auto_rerun":
            self.fragment = msg.auto_rerun.fragment_id
        elif kind == "delta" and msg.delta.fragment_id and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            wid = getattr(getattr(element, element.WhichOneof("type")), "id", "")
            if wid:
                self.__dict__.setdefault("in_fragment", {})[wid] = msg.delta.fragment_id
        return super()._take(msg, answer, seen)

    async def press(self, key: str):
        """Click button ``key``; inside a fragment, only that fragment runs."""
        w = self._by_key(key)
        msg: BackMsg = self._rerun(trigger=w.id)
        msg.rerun_script.fragment_id = self.__dict__.get("in_fragment", {}).get(w.id, "")
        return await self._send(msg)

    async def poll(self):
        msg: BackMsg = self._rerun()
        msg.rerun_script.fragment_id = self.fragment
        msg.rerun_script.is_auto_rerun = True
        return await self._send(msg)


async def warm(port: int, processes: int) -> None:
    """One Exercises page on each app process (its internal port), as a teacher's rehearsal
    before class would: the model and the page's code are loaded before the first phone."""
    for n in range(processes):
        client = Client(f"http://127.0.0.1:{port + 1 + n}/", timeout=300)
        await client.open("exercises", "lang=en")
        await client.close()


async def teacher_start(browser, url: str):
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768})
    page = await ctx.new_page()
    await page.goto(f"{url}class?lang=en&present=true", timeout=300_000)
    await page.get_by_role("button", name="Start a class").click(timeout=300_000)
    await page.wait_for_selector(".al-class-code", timeout=300_000)
    code = (await page.locator(".al-class-code").inner_text()).replace(" ", "")
    return ctx, page, code


BARS_JS = """() => {
  const count = [...document.querySelectorAll('.al-class-count')].map(e => e.innerText).join(' | ');
  const nums = [...document.querySelectorAll('.al-class-bars tbody .al-num')].map(e => e.innerText.trim());
  return {count, nums};
}"""


async def watch_bars(page, expected_nums: list[str], expected_count: str, stop: asyncio.Event) -> float | None:
    """The perf_counter time at which the page first shows the expected counts and bars."""
    while not stop.is_set():
        seen = await page.evaluate(BARS_JS)
        if expected_count in seen["count"] and seen["nums"][: len(expected_nums)] == expected_nums:
            return time.perf_counter()
        await asyncio.sleep(0.05)
    return None


async def phone(i: int, base: str, code: str, start_at: float, keys: int, out: dict, stop: asyncio.Event):
    await asyncio.sleep(max(0.0, start_at - time.perf_counter()))
    client = Phone(base, timeout=120)
    t_open = time.perf_counter()
    first = await client.open("exercises", f"class={code}&lang=en")
    out["join"].append(time.perf_counter() - t_open)
    if first.exceptions:
        out["errors"].append(first.exceptions[0])
    radio = next(k for k in first.widgets if k.endswith("_attend"))
    send = next(k for k in first.widgets if k.endswith("_send"))
    widget = client._by_key(radio)  # a form's widget: its value goes with the Send, no run of its own
    widget.value = widget.options[i % 3 if keys > 2 else i % keys]
    widget.field = "string_value"
    for _ in range(2 if i % 10 == 0 else 1):
        t_send = time.perf_counter()
        answer = await client.press(send)
        out["submit"].append(time.perf_counter() - t_send)
        if answer.exceptions:
            out["errors"].append(answer.exceptions[0])
    out["done"].append(time.perf_counter())
    while not stop.is_set():  # the phone's 2-second poll, until the measurement ends
        await asyncio.sleep(POLL_SECONDS)
        if client.fragment and not stop.is_set():
            t_poll = time.perf_counter()
            await client.poll()
            out["poll"].append(time.perf_counter() - t_poll)
    await client.close()


async def one_class(url: str, students: int, window: float, db_url: str) -> dict:
    from playwright.async_api import async_playwright

    from attention_core import class_questions as cq
    from classroom.store import open_store
    from harness import CHROMIUM, CHROMIUM_ARGS

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        ctx, teacher, code = await teacher_start(browser, url)
        store = open_store(db_url)
        state = store.state(code)
        if state is None or state.round is None:
            raise RuntimeError(f"the teacher's class {code} is not open")
        keys = len(cq.outcomes(state.round.kind, state.round.seed))
        chosen = [i % 3 if keys > 2 else i % keys for i in range(students)]
        expected = {f"key:{j}": chosen.count(j) for j in set(chosen)}
        counts = [chosen.count(j) for j in range(keys)]
        nums = [f"{round(100 * c / students)} % ({c})" for c in counts]
        out: dict[str, list] = {"join": [], "submit": [], "poll": [], "done": [], "errors": []}
        stop = asyncio.Event()
        t0 = time.perf_counter()
        spread = max(window - 2.0, 0.0)
        tasks = [
            asyncio.create_task(phone(i, url, code, t0 + spread * i / students, keys, out, stop))
            for i in range(students)
        ]
        watcher = asyncio.create_task(watch_bars(teacher, nums, f"{students} joined · {students} answered", stop))
        while len(out["done"]) < students and time.perf_counter() - t0 < 300:
            await asyncio.sleep(0.05)
        last = max(out["done"]) if out["done"] else None
        try:
            seen = await asyncio.wait_for(asyncio.shield(watcher), 60)
        except TimeoutError:
            seen = None
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        watcher.cancel()
        await ctx.close()
        await browser.close()
    stored = store.counts(code, 1)
    return {
        "students": students,
        "joined": getattr(store.state(code), "students", None),
        "answers": sum(stored.values()),
        "exactly_once": stored == expected,
        "within_window_s": (last - t0) if last else None,
        "bars_after_last_s": (seen - last) if seen and last else None,
        "join": out["join"],
        "submit": out["submit"],
        "poll": out["poll"],
        "errors": out["errors"][:3],
    }


def report(name: str, r: dict) -> None:
    def line(label, values):
        if not values:
            return f"  {label}: none"
        return (
            f"  {label}: n={len(values)} median {statistics.median(values) * 1000:.0f} ms, "
            f"p95 {percentile(values, 95) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"
        )

    print(f"\n{name}: {r['students']} students, {r['joined']} joined, {r['answers']} answers stored")
    print(f"  every answer counted exactly once (double taps included): {r['exactly_once']}")
    print(f"  all joined and answered within {r['within_window_s']:.1f} s of the first")
    bars = r["bars_after_last_s"]
    print(f"  teacher's bars right {bars:.2f} s after the last answer" if bars is not None else "  bars never right")
    print(line("join (first page run)", r["join"]))
    print(line("submit (Send's run)", r["submit"]))
    print(line("poll (fragment run)", r["poll"]))
    if r["errors"]:
        print(f"  errors: {r['errors']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"])
    parser.add_argument("--students", type=int, default=80)
    parser.add_argument("--window", type=float, default=10.0)
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[1]
    os.chdir(root)
    for db in args.db:
        with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
            server = None
            if db == "sqlite":
                db_url = f"sqlite:///{tmp}/data/classroom.sqlite3"
            else:
                from tests.postgres import PostgresServer, pg_bin

                found = pg_bin()
                if found is None:
                    raise SystemExit("PostgreSQL's binaries were not found (set PG_BIN)")
                server = PostgresServer(found).start()
                db_url = server.new_database()
            try:
                port = free_port_block(3)
                base = f"http://127.0.0.1:{port}"
                env = {"ATTENTION_LAB_CLASS_DB": db_url}
                with serve(
                    "--processes", "2", "--base-url", base, port=port, run_dir=Path(tmp) / "run", env=env
                ) as srv:
                    print(f"{db}: {srv.ready_line}", flush=True)
                    asyncio.run(warm(port, 2))
                    result = asyncio.run(one_class(srv.url, args.students, args.window, db_url))
                report(re.sub(r"\+.*", "", db_url.split(":")[0]), result)
            finally:
                if server is not None:
                    server.stop()
    print(machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())
