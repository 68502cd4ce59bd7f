"""The two catalogs (attention_ui/locales/en and zh) hold the same keys with the same
placeholders, every template formats, and the language is chosen as documented."""

from __future__ import annotations

import re

import pytest

from attention_ui.i18n import LANGS, LOCALES, catalog, choose_lang, placeholders, translate
from tests.helpers import ROOT


def test_every_language_has_the_same_files():
    files = {lang: sorted(p.name for p in (LOCALES / lang).glob("*.toml")) for lang in LANGS}
    assert files["en"], "the English catalog is empty"
    for lang, names in files.items():
        assert names == files["en"], f"{lang} has files {names}, English has {files['en']}"


@pytest.mark.parametrize("lang", [code for code in LANGS if code != "en"])
def test_same_keys_in_every_language(lang):
    en, other = catalog("en"), catalog(lang)
    missing = sorted(set(en) - set(other))
    extra = sorted(set(other) - set(en))
    assert not missing, f"in English but not in {lang}: {missing}"
    assert not extra, f"in {lang} but not in English: {extra}"


@pytest.mark.parametrize("lang", [code for code in LANGS if code != "en"])
def test_same_placeholders_in_every_language(lang):
    en, other = catalog("en"), catalog(lang)
    wrong = {
        key: (placeholders(en[key]), placeholders(other[key]))
        for key in en
        if key in other and placeholders(en[key]) != placeholders(other[key])
    }
    assert not wrong, f"placeholders differ (en, {lang}): {wrong}"


@pytest.mark.parametrize("lang", list(LANGS))
def test_every_template_formats_and_is_not_blank(lang):
    for key, template in catalog(lang).items():
        assert isinstance(template, str) and template.strip(), f"{lang}:{key} is blank"
        fields = placeholders(template)
        text = translate(lang, key, **{name: 7 for name in fields})
        # Single braces may remain on purpose: inline LaTeX such as $\alpha_{ij}$ is written {{ij}}.
        left = [name for name in fields if "{" + name in text]
        assert not left, f"{lang}:{key} left the fields {left} unfilled: {text!r}"


def test_chinese_catalog_is_chinese():
    """A key copied over untranslated shows up here: every Chinese string has a CJK character
    unless it is the same symbol-only string in both languages (e.g. a formula label)."""
    en, zh = catalog("en"), catalog("zh")
    untranslated = [
        key
        for key, text in zh.items()
        if not any("\u4e00" <= ch <= "\u9fff" for ch in text)
        and any(c.isalpha() and c.isascii() for c in text.replace("d_k", ""))
        and text == en.get(key)
        and len(text.split()) > 2
    ]
    assert not untranslated, f"not translated: {untranslated}"


def test_placeholders_and_fallbacks():
    assert placeholders("{n} of {total}, {{literal}}") == {"n", "total"}
    assert translate("xx", "shell.nav_home") == translate("en", "shell.nav_home")
    with pytest.raises(KeyError):
        translate("en", "shell.no_such_key")


@pytest.mark.parametrize(
    "url, browser, expected",
    [
        ("zh", "en-US", "zh"),
        ("en", "zh-CN", "en"),
        (None, "zh-TW", "zh"),
        ("xx", None, "en"),
        ("", "fr-FR", "en"),
        ("<script>", "ZH", "zh"),
    ],
)
def test_choose_lang(url, browser, expected):
    assert choose_lang(url, browser) == expected


def test_language_switch_in_the_app():
    """?lang=zh gives the Chinese sidebar and keeps lang in the URL; the switch goes back."""
    from attention_ui.i18n import translate as tr
    from tests.helpers import open_link

    at = open_link("home", "zh")
    assert at.text_area(key="sentence").label == tr("zh", "shell.sentence")
    assert at.query_params["lang"] == ["zh"] or at.query_params["lang"] == "zh"
    at.button_group(key="lang_picker").set_value("en").run()
    assert not at.exception, at.exception
    assert at.text_area(key="sentence").label == tr("en", "shell.sentence")


def test_invalid_lang_in_url_falls_back():
    from tests.helpers import open_link

    at = open_link("home", "xx")
    assert at.session_state["lang"] == "en"


GLOSSES = {
    "查询（query）": "query",
    "键（key）": "key",
    "值（value）": "value",
    "词元（token）": "token",
    "缩放点积注意力（scaled dot-product attention）": "scaled dot-product attention",
}
"""The standard Chinese terms with the English in brackets, and the English term itself."""


def test_both_catalogs_have_the_standard_terms_glossed_at_first_use():
    """The home page, where a learner starts, glosses every term in Chinese and uses the same
    standard terms in English; the bundled model has one Chinese name."""
    en, zh = catalog("en"), catalog("zh")
    for gloss, english in GLOSSES.items():
        assert gloss in zh["home.intro"], gloss
        assert english in en["home.intro"].lower(), english
    assert "内置模型" in zh["shell.toy_help"]
    for other_name in ("随附", "随应用打包", "已随应用"):
        assert not [key for key, text in zh.items() if other_name in text], other_name
    # 词元 where a token is meant, 词 only for words
    assert "每个词元的向量" in zh["matrices.outputs_text"]
    assert "一个词元（token）的查询" in zh["intuition.budget_softmax"]


PICTOGRAPHS = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f]")
"""Emoji and the symbol blocks that fonts without emoji draw as an empty box (issue 31)."""


@pytest.mark.parametrize("lang", LANGS)
def test_no_string_shows_an_emoji(lang):
    """Icons come from Streamlit's bundled Material Symbols (``:material/…:``): a classroom PC
    without an emoji font draws an emoji as an empty box."""
    found = {name: text[:60] for name, text in catalog(lang).items() if PICTOGRAPHS.search(text)}
    assert not found, f"emoji in the {lang} catalog (use :material/…: or words): {found}"


def test_no_icon_in_the_code_is_an_emoji():
    sources = [*ROOT.glob("app.py"), *ROOT.glob("pages/*.py"), *ROOT.glob("attention_ui/*.py")]
    found = [
        f"{path.name}: {match.group(0)}"
        for path in sources
        for match in re.finditer(r"icon=\"([^\"]*)\"", path.read_text(encoding="utf-8"))
        if PICTOGRAPHS.search(match.group(1))
    ]
    assert not found, f"emoji icons (use :material/…:): {found}"


# --------------------------------------------------------------------------- plural forms

COUNTED = re.compile(
    r"\{(\w+)\} (?:word )?(tokens|pieces|layers|heads|answers|updates|words|sentences|steps|examples)\b"
)
"""A count written before a plural noun: "{n} tokens" reads "1 tokens" when n is 1."""
ALWAYS_MANY = {
    "T": "the model's tokens with [CLS] and [SEP]: at least 2",
    "V": "the vocabulary of a learn task",
    "answers": "the tokens an answer of a learn task can be",
    "batch": "a training batch",
    "got": "a prompt longer than the model's positions",
    "limit": "the model's limit of word pieces",
    "max_rows": "the sentence table's limit",
    "max_tokens": "the lesson's limit of tokens",
    "n_agreement": "the he/she probe sentences",
    "n_heads": "the model's heads per layer",
    "n_layers": "the model's layers",
    "n_words": "the words of a fixed example",
    "steps": "the updates of a training run",
}
"""Counts written before a plural noun without plural forms, each with why it is never 1."""
NEVER_ONE = {
    **dict.fromkeys(
        ["learn.result", "learn.snapshot_line", "multi_head.intro_measured"], "n: held-out examples or sentences"
    ),
    "real_model.h_grid": "n: the 72 heads",
    "exercises.order_incomplete": "n: the steps of an order exercise",
    **dict.fromkeys(
        [
            "after_attention.cut",
            "after_attention.note_cut",
            "after_attention.vector_cut",
            "cross_attention.b_truncated",
            "real_model.cut",
            "shell.pieces_shown",
            "shell.pieces_window",
            "shell.tokens_shown",
            "shell.tokens_window",
        ],
        "total: a sentence cut to fewer tokens than it has",
    ),
    "heads.outcome_summary": "total: the 72 heads",
    "problems.differ_in_words": "n: two or more (one is a contrast pair, none another problem)",
    "problems.too_long": "pieces: more than the limit",
}
"""Catalog entries whose generic count (n, total) before a plural noun is never 1, and why."""


def test_plural_forms_pick_one_or_other():
    assert translate("en", "learn.model_line", layers=1, heads=2, d_model=8, d_k=4, batch=16, lr=0.01).startswith(
        "The model: 1 layer of causal self-attention with 2 heads each"
    )
    assert "2 layers of" in translate("en", "learn.model_line", layers=2, heads=1, d_model=8, d_k=4, batch=16, lr=0.01)
    assert translate("en", "learn.written", prompt="a", written="b", n=1).endswith("(1 token).")
    assert translate("en", "learn.written", prompt="a", written="b", n=0).endswith("(0 tokens).")
    assert translate("en", "class.round", n=2, answers=1) == "Round 2 · 1 answer"
    one = translate("en", "shell.unknown_tokens", unknown=1, total=5, unk="[UNK]", model="m")
    assert one.startswith("1 of 5 word pieces is [UNK]"), one
    assert translate("en", "presentation.handout_tokens", shown=1, total=1) == "1 of 1 token shown"
    assert translate("zh", "class.round", n=2, answers=1) == translate("zh", "class.round", n=2, answers=3).replace(
        "3", "1"
    )


def test_no_count_before_a_plural_noun_without_its_forms():
    """A count that can be 1 picks its noun's form (``i18n.plural_category``); "(s)" is gone."""
    en = catalog("en")
    assert not [key for key, text in en.items() if "(s)" in text]
    found = sorted(
        (key, match.group(0))
        for key, text in en.items()
        for match in COUNTED.finditer(text)
        if match.group(1) not in ALWAYS_MANY and key not in NEVER_ONE
    )
    assert not found, f"write the forms, e.g. '{{n}} {{n:one=token;other=tokens}}': {found}"


def test_chinese_needs_no_plural_forms():
    assert not [key for key, text in catalog("zh").items() if "one=" in text]
