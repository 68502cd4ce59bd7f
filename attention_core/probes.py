"""The probe set: sentences we wrote to measure what the model's heads do (``heads.py``).

The data lives in ``attention_core/data/head_probes.toml``, which documents its own rules:

* ``pairs``: Winograd-style minimal pairs, two sentences that differ in one word so that the
  noun "it" refers to changes ("… because it was too tired" / "… because it was too wide");
* ``agreement``: sentences with a man and a woman (or a boy and a girl …) and one "he" or "she";
* ``plain``: sentences of varied structure, for the roles that need no pronoun.

The bundled model reads English only, so the probes are English; the pages around them speak
both languages.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

PROBES_FILE = Path(__file__).with_name("data") / "head_probes.toml"


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
