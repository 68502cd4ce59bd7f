"""Attention Lab — entry point. Every script run takes one route (attention_ui.route.run_app):
the page list (attention_ui.registry.PAGES), the shared sidebar, the page, the link to this view."""

from attention_ui.route import run_app

run_app()
