"""The probe sets: sentences we wrote to measure what the model's heads do (``heads.py``).

Two files, each documenting its rules: ``attention_core/data/head_probes.toml`` (``PROBES_FILE``),
the set heads are *chosen* on (the best he/she head, the best "it" head …), and
``head_probes_held_out.toml`` (``HELD_OUT_FILE``), written before any head was measured on it,
that every figure about a chosen head is *reported* on. Each has three sections:

* ``pairs``: Winograd-style minimal pairs, two sentences that differ in one word so that the
  noun "it" refers to changes ("… because it was too tired" / "… because it was too wide");
* ``agreement``: sentences with a man and a woman (or a boy and a girl …) and one "he" or "she";
* ``plain``: sentences of varied structure, for the roles that need no pronoun.

The bundled model reads English only, so the probes are English; the pages around them speak
both languages.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

PROBES_FILE = Path(__file__).with_name("data") / "head_probes.toml"
HELD_OUT_FILE = PROBES_FILE.with_name("head_probes_held_out.toml")

SWAPS = {
    "he": "she",
    "she": "he",
    "him": "her",
    "his": "her",
    "hers": "his",
    "himself": "herself",
    "herself": "himself",
}
"""The pronoun swap: each English personal pronoun of one gender and its counterpart. "her" is
"him" or "his" by what follows (``swap_pronoun``)."""

_NOT_A_NOUN_AFTER_HER = frozenset(
    "a an the and or but to of in on at for with by from as than that this then so if when while "
    "because before after until is was were be been are".split()
)
"""Words after which "her" is an object ("saw her and left": him), not a possessive ("her coat": his)."""

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


@dataclass(frozen=True)
class Swap:
    """A sentence with one pronoun swapped: ``text``, the pronoun ``old`` as it read and ``new``."""

    text: str
    old: str
    new: str


def swap_pronoun(text: str) -> Swap | None:
    """``text`` with its first he/she/him/her/his/hers/himself/herself swapped for the other
    gender's (capitals kept), or None when it has none. Names and nouns stay as they are.

    >>> swap_pronoun("The girl met a man as he left.").text
    'The girl met a man as she left.'
    >>> swap_pronoun("Her coat was red.").text, swap_pronoun("I saw her.").text
    ('His coat was red.', 'I saw him.')
    >>> swap_pronoun("The cat sat.") is None
    True
    """
    words = list(_WORD.finditer(text))
    for n, match in enumerate(words):
        old = match.group()
        new = SWAPS.get(old.lower())
        if old.lower() == "her":
            after = words[n + 1].group().lower() if n + 1 < len(words) else ""
            joined = n + 1 < len(words) and text[match.end() : words[n + 1].start()].strip() == ""
            new = "his" if joined and after and after not in _NOT_A_NOUN_AFTER_HER else "him"
        if new is None:
            continue
        new = new.capitalize() if old[0].isupper() else new
        return Swap(text=text[: match.start()] + new + text[match.end() :], old=old, new=new)
    return None


@dataclass(frozen=True)
class Pair:
    """Two sentences that differ in one word; ``word`` refers to ``referent_a`` in a, ``referent_b`` in b."""

    a: str
    b: str
    word: str
    referent_a: str
    referent_b: str

    @property
    def switch(self) -> tuple[str, str]:
        """The one word that differs, as it reads in a and in b.

        >>> Pair("It was big.", "It was small.", "it", "x", "y").switch
        ('big.', 'small.')
        """
        words_a, words_b = self.a.split(), self.b.split()
        differ = [(x, y) for x, y in zip(words_a, words_b) if x != y]
        if len(words_a) != len(words_b) or len(differ) != 1:
            raise ValueError(f"a minimal pair differs in exactly one word: {self.a!r} / {self.b!r}")
        return differ[0]


@dataclass(frozen=True)
class Agreement:
    """One sentence in which ``word`` (he or she) refers to ``referent``, not to ``other``."""

    text: str
    word: str
    referent: str
    other: str

    @property
    def swapped(self) -> Agreement:
        """The same sentence with he ↔ she swapped: the other noun is now the referent.

        >>> Agreement("The king met the queen as he left.", "he", "king", "queen").swapped
        Agreement(text='The king met the queen as she left.', word='she', referent='queen', other='king')
        """
        swap = swap_pronoun(self.text)
        if swap is None or swap.old.lower() != self.word:
            raise ValueError(f"no {self.word!r} to swap in {self.text!r}")
        return Agreement(text=swap.text, word=swap.new.lower(), referent=self.other, other=self.referent)


@dataclass(frozen=True)
class Probes:
    """The whole probe set."""

    pairs: tuple[Pair, ...]
    agreement: tuple[Agreement, ...]
    plain: tuple[str, ...]


def load_probes(path: str | Path = PROBES_FILE) -> Probes:
    """Read the probe set (``PROBES_FILE`` by default).

    Raises ValueError naming the section and entry when a field is missing.

    >>> probes = load_probes()
    >>> len(probes.pairs) >= 40, len(probes.agreement) >= 40, len(probes.plain) >= 100
    (True, True, True)
    >>> probes.pairs[0].word
    'it'
    >>> len(load_probes(HELD_OUT_FILE).agreement)
    48
    """
    with open(path, "rb") as f:
        data = tomllib.load(f)

    def entries(section: str, kind):
        made = []
        for n, entry in enumerate(data.get(section, [])):
            try:
                made.append(kind(**entry))
            except TypeError as err:
                raise ValueError(f"{path}: [[{section}]] entry {n + 1}: {err}") from None
        return tuple(made)

    return Probes(
        pairs=entries("pairs", Pair),
        agreement=entries("agreement", Agreement),
        plain=tuple(entry["text"] for entry in data.get("plain", [])),
    )
