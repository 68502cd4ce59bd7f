"""``streamlit run`` with a stopwatch on every script run, for bench_clicks.py and bench_draw.py.

    BENCH_RUNS_LOG=/tmp/runs.jsonl python -m bench.st_timed run app.py --server.headless true ...

(``bench.core.Server(timed=True)`` starts it so, from the repo root.) It runs inside the server's
process and imports nothing from ``bench``.

Everything after the script name is handed to Streamlit's own command line unchanged; the app
is not touched. Before Streamlit starts, two of its functions are wrapped in this process:

* ``script_runner.exec_func_with_error_handling``: called once per script run (a rerun that
  st.rerun() starts inside a run is its own call). Its wall time (``time.perf_counter``) and the
  CPU time of the script thread (``time.thread_time``) are one JSON line in ``BENCH_RUNS_LOG``:
  ``{"t_end": <time.time()>, "wall": s, "cpu": s, "charts": [[key, spec bytes, seconds], ...]}``.
  That is the whole script run: app.py, the sidebar, the page, every ``st.*`` call that turns
  an element into a message and queues it. It is not the time the server then takes to send
  the queued messages (Tornado's thread) nor the garbage collection Streamlit starts after the
  run (``runner.postScriptGC``) — both happen after the run has been reported over.
* ``st.plotly_chart``: its wall time (``to_dict``, ``plotly.io.to_json``, the protobuf) and the
  length of the figure's JSON spec, per chart, under the chart's key.

With ``BENCH_PROFILE_DIR`` set, every script run is also profiled with cProfile (the script
thread only) and dumped as ``<dir>/run-<n>.prof``; profiling slows a run down by about half,
so do not read times from a profiled server.
"""

from __future__ import annotations

import cProfile
import functools
import itertools
import json
import os
import sys
import threading
import time
import types

_LOG = os.environ.get("BENCH_RUNS_LOG")
_PROFILE_DIR = os.environ.get("BENCH_PROFILE_DIR")
_local = threading.local()
_lock = threading.Lock()
_counter = itertools.count(1)


def _write(record: dict) -> None:
    if not _LOG:
        return
    with _lock, open(_LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def _install() -> None:
    import plotly.io
    import streamlit
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.runtime.scriptrunner import script_runner

    original_exec = script_runner.exec_func_with_error_handling

    @functools.wraps(original_exec)
    def timed_exec(func, ctx):
        _local.charts = []
        profiler = cProfile.Profile() if _PROFILE_DIR else None
        t_wall, t_cpu = time.perf_counter(), time.thread_time()
        if profiler is not None:
            profiler.enable()
        try:
            return original_exec(func, ctx)
        finally:
            if profiler is not None:
                profiler.disable()
            wall, cpu = time.perf_counter() - t_wall, time.thread_time() - t_cpu
            n = next(_counter)
            if profiler is not None:
                profiler.dump_stats(os.path.join(_PROFILE_DIR, f"run-{n}.prof"))
            _write({"n": n, "t_end": time.time(), "wall": wall, "cpu": cpu, "charts": _local.charts})
            _local.charts = None

    script_runner.exec_func_with_error_handling = timed_exec

    original_to_json = plotly.io.to_json

    @functools.wraps(original_to_json)
    def sized_to_json(*args, **kwargs):
        text = original_to_json(*args, **kwargs)
        if getattr(_local, "in_chart", None) is not None:
            _local.in_chart += len(text.encode("utf-8"))
        return text

    plotly.io.to_json = sized_to_json

    original_chart = DeltaGenerator.plotly_chart

    @functools.wraps(original_chart)
    def timed_chart(self, figure_or_data, *args, **kwargs):
        _local.in_chart = 0
        start = time.perf_counter()
        try:
            return original_chart(self, figure_or_data, *args, **kwargs)
        finally:
            charts = getattr(_local, "charts", None)
            if charts is not None:
                charts.append([kwargs.get("key"), _local.in_chart, time.perf_counter() - start])
            _local.in_chart = None

    DeltaGenerator.plotly_chart = timed_chart  # type: ignore[method-assign]  # the stopwatch is the point
    streamlit.plotly_chart = types.MethodType(timed_chart, streamlit._main)  # st.plotly_chart was bound at import


def main() -> None:
    _install()
    from streamlit.web import cli

    sys.argv = ["streamlit", *sys.argv[1:]]
    sys.exit(cli.main())


if __name__ == "__main__":
    main()
