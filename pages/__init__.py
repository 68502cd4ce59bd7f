"""The app's pages, one module each: ``pages/<id>.py`` for a page of ``attention_ui.registry.PAGES``.

A page module defines ``render()`` (the registry hands it to ``st.Page``) and ends with
``if __name__ == "__main__": run_app()``, for the runs where Streamlit executes the file by itself
(its legacy ``pages/`` router: a fresh server's first request, AppTest). This file makes ``pages``
a package, so that ``import pages.<id>`` finds these modules and nothing else named ``pages``.
"""
