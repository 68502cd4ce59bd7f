"""What a page says when the core cannot use what the learner gave it: the catalog's sentence in
the learner's language, never Python's exception text.

The core raises ``attention_core.unreadable.Unreadable`` with a reason (``key``) and its details
(``fields``); ``problem_text`` gives ``t("problems.<key>", **fields)``, the learner's words in the
fields escaped for Markdown. Any other exception gets one general sentence (its text is for the
server's log, in English, and may name code).

>>> from attention_core.unreadable import Unreadable
>>> problem_text(Unreadable("not_a_word", "…", word="**he**", words="the cat"))
'“\\\\*\\\\*he\\\\*\\\\*” is not a word of either sentence (the model reads: the cat).'
>>> problem_text(KeyError("x"))
'the text could not be read here.'
"""

from __future__ import annotations

from attention_core.unreadable import Unreadable
from attention_ui.i18n import catalog, current_lang, t
from attention_ui.safe import escape_markdown

NAMESPACE = "problems"


def problem_text(exc: BaseException) -> str:
    """The sentence a page shows for ``exc`` (see the module's docstring)."""
    key = f"{NAMESPACE}.{exc.key}" if isinstance(exc, Unreadable) else ""
    if not isinstance(exc, Unreadable) or key not in catalog(current_lang()):
        return t(f"{NAMESPACE}.unknown")
    fields = {name: escape_markdown(value) if isinstance(value, str) else value for name, value in exc.fields.items()}
    return t(key, **fields)
