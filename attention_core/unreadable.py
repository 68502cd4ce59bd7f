"""Input a learner gave that a computation cannot use, said so that a page can say it in the
learner's language.

The core speaks no language of the learner's: it raises ``Unreadable`` with a reason (``key``,
one id per kind of problem) and its details (``fields``: the learner's word, a count). A page
turns it into the catalog's sentence ``problems.<key>`` (``attention_ui.problems.problem_text``);
``str()`` stays an English sentence for logs and tests. It is a ``ValueError``, so code that
catches those keeps working.

>>> err = Unreadable("not_a_word", "'他' is not a word of either sentence", word="他", words="the cat")
>>> isinstance(err, ValueError), err.key, err.fields["word"], str(err)
(True, 'not_a_word', '他', "'他' is not a word of either sentence")
"""

from __future__ import annotations


class Unreadable(ValueError):
    """A learner's input that cannot be used: ``key`` says why, ``fields`` with what."""

    def __init__(self, key: str, message: str, **fields: str | int) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields
