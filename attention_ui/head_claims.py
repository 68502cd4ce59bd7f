"""What the app says about a head, in words, with the number measured beside every claim.

The numbers come from ``attention_core.heads`` (the census of every head over the probe sets);
this module only picks which to say and words them through the catalogs. A sentence about a
head is a claim, so none is written here without its measurement.

One rule for every sentence about one head: what to say (is this a he/she head? a reversed one?)
is decided on the set heads are chosen on, and every figure printed is the held-out one
(``Census.held_out``), with its 95 % interval where it counts sentences.

>>> from attention_core.heads import census
>>> from functools import partial
>>> from attention_ui.i18n import translate
>>> head_summary(census(), 0, 2, tr=partial(translate, "en")).startswith("Layer 1, head 3, measured")
True
"""

from __future__ import annotations

import threading

from attention_core.estimates import Estimate
from attention_core.heads import Census, estimate, heads_with_a_job, parking_heads, profile

from .i18n import t
from .notation import shown

AGREEMENT_SAID = 0.75
"""A head's he/she result is said beside it when, on the sentences heads are chosen on, it gets at
least this share of them right (a head that ignores gender gets about half), or at most
1 − this share: then it is said to be reversed."""


_CENSUS_OF: dict[str, tuple[int, ...]] = {}
"""The weights file each model's census was taken for: its ``file_stamp``, by resolved name."""
_CENSUS_LOCK = threading.Lock()


def measured_census(name: str | None = None) -> Census | None:
    """The census of every head of model ``name`` (default: the default model) over the probe
    sets (``attention_core.heads.census``, once per process and weights file), or None when the
    model cannot be read (then nothing is claimed about a head).

    The model is asked first whether it reads now (``encoder.load_encoder``: a ``stat`` when its
    weights file is unchanged): a file damaged under the running app leaves no claim on the
    page, as at start, and a census taken on other weights than the file holds now (a good file
    renamed over, another model's update) is taken again."""
    from attention_core.encoder import load_encoder
    from attention_core.heads import census
    from attention_core.model_choice import resolve_model_name
    from attention_core.model_files import ModelUnavailable

    try:
        encoder = load_encoder(name)
        resolved = resolve_model_name(name)
        with _CENSUS_LOCK:
            if _CENSUS_OF.setdefault(resolved, encoder.weights_stamp) != encoder.weights_stamp:
                census.cache_clear()  # another weights file since: read or measured again
                _CENSUS_OF[resolved] = encoder.weights_stamp
        return census(name)
    except (ModelUnavailable, MemoryError, OSError):
        return None


def whole_percents(shares) -> list[int]:
    """``shares`` (adding up to at most 1) as whole percents that add up to the rounded total:
    each rounded down, then the largest remainders rounded up. So a list of shares never adds
    up to 101 %.

    >>> whole_percents([0.505, 0.495]), whole_percents([0.436, 0.402, 0.162])
    ([51, 49], [44, 40, 16])
    """
    exact = [100 * s for s in shares]
    floors = [int(x) for x in exact]
    short = round(sum(exact)) - sum(floors)
    by_remainder = sorted(range(len(exact)), key=lambda k: floors[k] - exact[k])
    for k in by_remainder[: max(short, 0)]:
        floors[k] += 1
    return floors


def interval(e: Estimate, tr=t) -> str:
    """ "86–99 %": an estimate's 95 % interval in whole percents."""
    return tr("heads.interval", low=round(100 * e.low), high=round(100 * e.high))


def count_fields(e: Estimate, tr=t) -> dict:
    """The catalog fields of a counted estimate: ``count``, ``n``, ``share`` and ``interval``."""
    return {"count": e.count, "n": e.n, "share": e.value, "interval": interval(e, tr)}


def summary_shares(found: Census, layer: int, head: int, tr=t) -> dict:
    """The two largest disjoint shares of a row's weight of head (``layer``, ``head``) in
    ``found``, and what is left, as whole percents that add up to 100: the catalog fields
    ``role_a``, ``share_a``, ``role_b``, ``share_b`` and ``left`` (what is left, in words; nothing
    when it rounds to 0)."""
    p = profile(found, layer, head)
    (role_a, a), (role_b, b) = sorted([*p.top, ("rest", p.roles["rest"])], key=lambda rs: -rs[1])[:2]
    share_a, share_b, left = whole_percents([a, b, max(0.0, 1.0 - a - b)])
    return {
        "role_a": tr(f"heads.role_{role_a}_short"),
        "share_a": share_a,
        "role_b": tr(f"heads.role_{role_b}_short"),
        "share_b": share_b,
        "left": tr("heads.left", left=left) if left else "",
    }


def head_summary(found: Census, layer: int, head: int, *, tr=t, brief: bool = False) -> str:
    """One paragraph on head (``layer``, ``head``), 0-based, every figure held-out and with its
    number: where its rows put their weight (the two largest disjoint shares and what is left),
    its he/she result and pronoun swap when it has that job (or does it reversed), its
    minimal-pair result; for the default head, why the lessons open on it. ``brief`` (the
    sidebar): without the head's name and the minimal pairs."""
    from attention_core.lesson import TRAINED_HEAD

    held = found.held_out or found  # the figures; ``found`` decides what to say
    chosen, p = profile(found, layer, head), profile(held, layer, head)
    summary = "heads.summary_brief" if brief else "heads.summary"
    text = tr(summary, layer=shown(layer), head=shown(head), n=p.n_plain, **summary_shares(held, layer, head, tr))
    agreement = estimate(held, "agreement", layer, head)
    swap = estimate(held, "swap", layer, head)
    has_job = chosen.agreement_correct >= AGREEMENT_SAID * chosen.n_agreement
    if has_job:
        text += tr(
            "heads.summary_agreement",
            **count_fields(agreement, tr),
            referent=p.agreement_referent,
            other=p.agreement_other,
            moved=swap.count,
        )
    elif chosen.agreement_correct <= (1 - AGREEMENT_SAID) * chosen.n_agreement:
        reversed_ = Estimate(
            1 - agreement.value, 1 - agreement.high, 1 - agreement.low, agreement.n, p.n_agreement - p.agreement_correct
        )
        text += tr("heads.summary_reversed", **count_fields(reversed_, tr), moved=swap.count)
    if not brief:
        pairs = estimate(held, "pairs", layer, head)
        text += tr("heads.summary_pairs", **count_fields(pairs, tr), same=p.pairs_same, shifted=p.pairs_shifted)
    if (layer, head) == TRAINED_HEAD and has_job:
        text += tr("heads.why_default")  # the bundled model's he/she head; another model's may be none
    return text


def parking_fields(found: Census, tokens) -> dict:
    """The fields of the catalog sentences about the start and end markers: the model's own
    (``tokens``, a sentence as the model reads it, begins and ends with them: [CLS] and [SEP],
    or <s> and </s>), how many of how many heads park more than half of a row's weight on them
    (together, on the first, on the last), over how many probe sentences."""
    n_layers, n_heads = found.roles["cls"].shape
    return {
        "parking": parking_heads(found),
        "parking_cls": parking_heads(found, ("cls",)),
        "parking_sep": parking_heads(found, ("sep",)),
        "n_heads": n_layers * n_heads,
        "n_plain": found.n_plain,
        "cls": tokens[0],
        "sep": tokens[-1],
    }


def jobs_fields(found: Census) -> dict | None:
    """The fields of ``multi_head.intro_measured``: the previous-token head and the he/she head,
    chosen on one set, with their held-out figures (positions from 1), or None when the census
    finds no such head."""
    jobs = {job.job: job for job in heads_with_a_job(found)}
    if "previous" not in jobs or "agreement" not in jobs:
        return None
    previous, agreement = jobs["previous"], jobs["agreement"]
    return {
        "prev_layer": shown(previous.layer),
        "prev_head": shown(previous.head),
        "previous": previous.held_out.value,
        "agr_layer": shown(agreement.layer),
        "agr_head": shown(agreement.head),
        "correct": agreement.held_out.count,
        "n": agreement.held_out.n,
        "interval": interval(agreement.held_out),
    }
