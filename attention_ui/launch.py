"""``streamlit run`` with nothing reaching outside from the first moment: for a school server.

    python -m attention_ui.launch app.py --server.headless true --server.port 8501 ...

takes exactly the arguments of ``streamlit run`` (after ``run``). Before Streamlit starts its
server it routes Streamlit's lookups of this machine's addresses around the network
(``internals.keep_streamlit_local``). Plain ``streamlit run app.py`` gets the same from
``shell.run_app``, but only from the process's first script run on: a websocket with a foreign ``Origin`` that
reaches a fresh server before any learner has opened a page would still make Streamlit ask an
outside service for its address. ``deploy/serve.sh`` starts every app process this way.

Started with $ATTENTION_LAB_PARENT_PID (as serve.sh does), it stops when that process dies, even
killed outright (``lifeline``). It also warms the server as it starts (``warm.warm_start``: the
model, the census, the pages' imports, in a background thread), so that the first learner does
not wait for them.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Patch, then run Streamlit's own command line as ``streamlit run <argv>`` (it exits)."""
    from attention_ui.lifeline import die_with_parent_named_in_env

    die_with_parent_named_in_env()  # started by serve.sh: stop when it dies, however it dies
    from attention_ui.internals import keep_streamlit_local  # importing attention_ui installed the fragment rescue

    keep_streamlit_local()
    from attention_ui.warm import warm_start

    warm_start()  # in the background: the server answers as soon as without it
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", *(sys.argv[1:] if argv is None else argv)]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
