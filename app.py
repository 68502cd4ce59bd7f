"""Attention Lab — entry point. Every script run takes one route (attention_ui.shell.run_app):
the page list (attention_ui.shell.NAV), the shared sidebar, the page, the link to this view."""

from attention_ui.shell import run_app

run_app()
