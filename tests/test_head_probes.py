"""The head-probe sentences follow the rules in their files' headers: the set heads are chosen on
(attention_core/data/head_probes.toml) and the held-out set they are reported on
(head_probes_held_out.toml), each on its own and both together (no sentence in both).

Checked with the bundled model's own tokenizer (word pieces without [CLS] and [SEP]):
every pronoun and noun is one word piece found exactly once, the pronoun comes after both
nouns, a minimal pair differs in one word and in that word's pieces only, no sentence is
over 40 pieces or appears twice, and the sections are as large and as balanced as promised.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "attention_core" / "data"
FILES = {"chosen_on": DATA / "head_probes.toml", "held_out": DATA / "head_probes_held_out.toml"}
LEAST = {  # how many entries of each section a file promises
    "chosen_on": {"pairs": 44, "agreement": 48, "plain": 110},
    "held_out": {"pairs": 40, "agreement": 48, "plain": 48},
}
MAX_PIECES = 40
MALE = {
    "man",
    "boy",
    "king",
    "father",
    "brother",
    "uncle",
    "husband",
    "son",
    "grandfather",
    "grandson",
    "prince",
    "nephew",
    "actor",
    "waiter",
    "gentleman",
    "duke",
    "stepfather",
    "host",
    "emperor",
    "groom",
    "monk",
    "grandpa",
    "wizard",
    "hero",
    "boyfriend",
    "priest",
    "dad",
}
FEMALE = {
    "woman",
    "girl",
    "queen",
    "mother",
    "sister",
    "aunt",
    "wife",
    "daughter",
    "grandmother",
    "granddaughter",
    "princess",
    "niece",
    "actress",
    "waitress",
    "lady",
    "duchess",
    "stepmother",
    "hostess",
    "empress",
    "bride",
    "nun",
    "grandma",
    "witch",
    "heroine",
    "girlfriend",
    "priestess",
    "mom",
}
PERSONAL = {"he", "she", "him", "her", "his", "hers"}


def read(path: Path) -> dict:
    with path.open("rb") as fh:
        return tomllib.load(fh)


@pytest.fixture(scope="module", params=list(FILES))
def probes(request) -> dict:
    return {"which": request.param, **read(FILES[request.param])}


@pytest.fixture(scope="module")
def tok():
    from attention_core.model_files import bundled_path

    tokenizers = pytest.importorskip("tokenizers")
    tokenizer = tokenizers.Tokenizer.from_file(os.path.join(bundled_path(), "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _words(text: str) -> list[str]:
    """Lower-cased whole words: letters, digits, hyphens and apostrophes inside a word."""
    return re.findall(r"[a-z0-9]+(?:['-][a-z0-9]+)*", text.lower())


def _first(text: str, noun: str, other: str) -> bool:
    """Whether ``noun`` comes before ``other`` in ``text`` (False if either is missing)."""
    words = _words(text)
    return noun in words and other in words and words.index(noun) < words.index(other)


def _check_targets(tok, text: str, pronoun: str, nouns: list[str]) -> list[str]:
    """What is wrong with the pronoun and its candidate nouns in one sentence ([] if nothing)."""
    problems = []
    pieces = tok.encode(text, add_special_tokens=False).tokens
    words = _words(text)
    if len(pieces) > MAX_PIECES:
        problems.append(f"{len(pieces)} word pieces (at most {MAX_PIECES})")
    for target in [pronoun, *nouns]:
        alone = tok.encode(target, add_special_tokens=False).tokens
        if alone != [target]:
            problems.append(f"{target!r} is not one word piece: {alone}")
        if pieces.count(target) != 1:
            problems.append(f"{target!r} occurs {pieces.count(target)} times among the pieces {pieces}")
        if words.count(target) != 1:
            problems.append(f"{target!r} occurs {words.count(target)} times as a whole word")
    if not problems:
        where = {target: pieces.index(target) for target in [pronoun, *nouns]}
        if any(where[noun] > where[pronoun] for noun in nouns):
            problems.append(f"the pronoun {pronoun!r} comes before a noun: {where}")
    return problems


def _fail_if(problems: list[str], what: str) -> None:
    assert not problems, f"{len(problems)} {what} break the rules:\n" + "\n".join(problems)


def test_file_loads_with_the_three_sections(probes):
    assert set(probes) == {"which", "pairs", "agreement", "plain"}, f"sections: {sorted(probes)}"
    for section, least in LEAST[probes["which"]].items():
        assert len(probes[section]) >= least, f"only {len(probes[section])} {section} (at least {least})"
    fields = {
        "pairs": {"a", "b", "word", "referent_a", "referent_b"},
        "agreement": {"text", "word", "referent", "other"},
    }
    fields["plain"] = {"text"}
    for section, wanted in fields.items():
        for i, entry in enumerate(probes[section]):
            assert set(entry) == wanted, f"{section}[{i}] {entry}: fields {sorted(entry)}, expected {sorted(wanted)}"
            assert all(isinstance(v, str) and v.strip() for v in entry.values()), f"{section}[{i}] {entry}: empty field"


def test_no_sentence_twice_and_none_too_long(probes, tok):
    sentences = [p[k] for p in probes["pairs"] for k in ("a", "b")]
    sentences += [e["text"] for e in probes["agreement"]] + [e["text"] for e in probes["plain"]]
    twice = [s for s, n in Counter(s.strip().lower() for s in sentences).items() if n > 1]
    assert not twice, f"sentences that appear more than once: {twice}"
    long = [(s, n) for s in sentences if (n := len(tok.encode(s, add_special_tokens=False).tokens)) > MAX_PIECES]
    assert not long, f"sentences over {MAX_PIECES} word pieces: {long}"


def test_pairs(probes, tok):
    problems = []
    for i, pair in enumerate(probes["pairs"]):
        label = f"pairs[{i}] a={pair['a']!r}"
        if pair["word"] != "it":
            problems.append(f"{label}: word is {pair['word']!r}, expected 'it'")
            continue
        nouns = [pair["referent_a"], pair["referent_b"]]
        if nouns[0] == nouns[1]:
            problems.append(f"{label}: referent_a and referent_b are both {nouns[0]!r}")
        if set(nouns) & (MALE | FEMALE):
            problems.append(f"{label}: a candidate is a gendered human noun {nouns}")
        for key in ("a", "b"):
            if not pair[key].endswith("."):
                problems.append(f"{label}: {key} does not end with a period")
            problems += [f"{label}, {key}: {p}" for p in _check_targets(tok, pair[key], "it", nouns)]
        words_a, words_b = pair["a"].split(), pair["b"].split()
        switched = [j for j, (x, y) in enumerate(zip(words_a, words_b)) if x != y]
        if len(words_a) != len(words_b) or len(switched) != 1:
            problems.append(
                f"{label}: a and b must have as many words and differ in exactly one (differ at {switched})"
            )
            continue
        same_a, same_b = _pieces_outside(tok, pair["a"], switched[0]), _pieces_outside(tok, pair["b"], switched[0])
        if same_a != same_b:
            problems.append(f"{label}: word pieces outside the switch word differ: {same_a} vs {same_b}")
    _fail_if(problems, "pairs")


def _pieces_outside(tok, text: str, skip: int) -> list[tuple[int, str]]:
    """(whitespace word index, piece) for every piece that is not part of word ``skip``."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    enc = tok.encode(text, add_special_tokens=False)
    out = []
    for piece, (start, _end) in zip(enc.tokens, enc.offsets):
        index = next(j for j, (s, e) in enumerate(spans) if s <= start < e)
        if index != skip:
            out.append((index, piece))
    return out


def test_pairs_vary_their_candidates_and_referents(probes):
    uses = Counter(noun for pair in probes["pairs"] for noun in {pair["referent_a"], pair["referent_b"]})
    overused = {noun: n for noun, n in uses.items() if n > 3}
    assert not overused, f"candidate nouns used in more than 3 pairs: {overused}"
    first = sum(_first(pair["a"], pair["referent_a"], pair["referent_b"]) for pair in probes["pairs"])
    share = first / len(probes["pairs"])
    assert 0.4 <= share <= 0.6, f"referent_a is the first candidate in {first} of {len(probes['pairs'])} pairs"


def test_agreement(probes, tok):
    problems = []
    for i, entry in enumerate(probes["agreement"]):
        label = f"agreement[{i}] {entry['text']!r}"
        word, referent, other = entry["word"], entry["referent"], entry["other"]
        gender = {"he": MALE, "she": FEMALE}.get(word)
        if gender is None:
            problems.append(f"{label}: word is {word!r}, expected 'he' or 'she'")
            continue
        if referent not in gender or other not in (MALE | FEMALE) - gender:
            problems.append(f"{label}: {word!r} must match referent {referent!r} and not other {other!r}")
        words = _words(entry["text"])
        extra_pronouns = [w for w in words if w in PERSONAL and w != word]
        if extra_pronouns:
            problems.append(f"{label}: other personal pronouns {extra_pronouns}")
        humans = [w for w in words if w in MALE | FEMALE]
        if sorted(humans) != sorted([referent, other]):
            problems.append(f"{label}: human nouns {humans}, expected exactly {[referent, other]}")
        problems += [f"{label}: {p}" for p in _check_targets(tok, entry["text"], word, [referent, other])]
    _fail_if(problems, "agreement sentences")


def test_agreement_is_balanced(probes):
    entries = probes["agreement"]
    he = sum(e["word"] == "he" for e in entries)
    first = sum(_first(e["text"], e["referent"], e["other"]) for e in entries)
    assert 2 * he == len(entries), f"{he} of {len(entries)} agreement sentences use 'he' (expected half)"
    assert 2 * first == len(entries), f"the referent comes first in {first} of {len(entries)} (expected half)"


def test_plain_sentences_vary_in_length(probes, tok):
    short = [e["text"] for e in probes["plain"] if len(e["text"].split()) < 4]
    assert not short, f"plain sentences under 4 words: {short}"
    lengths = [len(e["text"].split()) for e in probes["plain"]]
    assert max(lengths) >= 20, f"the longest plain sentence has only {max(lengths)} words"
    assert any(e["text"].endswith("?") for e in probes["plain"]), "no question among the plain sentences"


def test_no_sentence_is_in_both_sets():
    """The held-out set shares no sentence with the set heads are chosen on (case and spaces aside)."""

    def sentences(data: dict) -> set[str]:
        found = [p[k] for p in data["pairs"] for k in ("a", "b")]
        found += [e["text"] for e in data["agreement"]] + [e["text"] for e in data["plain"]]
        return {" ".join(s.lower().split()) for s in found}

    shared = sentences(read(FILES["chosen_on"])) & sentences(read(FILES["held_out"]))
    assert not shared, f"sentences in both probe sets: {sorted(shared)}"
