"""Getting another model onto a machine that cannot reach the model hub: fetch once, copy, verify.

On a machine with internet (the same steps are in docs/deploy.md, "A model that reads Chinese"):

    python -m attention_core.fetch sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2 \\
        --revision <40-hex commit> --to multilingual-model

then copy the directory to the school server, check the copy and point the app at it:

    python -m attention_core.fetch --verify multilingual-model
    ATTENTION_LAB_MODEL=$PWD/multilingual-model streamlit run app.py

``fetch`` asks the hub (``$HF_ENDPOINT``, else huggingface.co) which files the revision holds,
downloads only those the app and sentence-transformers read (``needed``: config, tokenizer,
``model.safetensors``, the sentence-transformers module configs; never pytorch_model.bin, ONNX
or TensorFlow copies) into a staging directory, checks each file against the hub's own listing
(the SHA-256 of a large file, the git blob id of a small one), checks that our encoder
implements the model (``check_readable``), and only then moves the directory into place. It
writes three files beside the model's:

    fetched.json                 the model's id, the revision asked for and the commit it names
    model.safetensors.sha256     the weights' SHA-256: the app checks it before every read
                                 (``model_files.expected_weights_sha256``)
    SHA256SUMS                   every file's SHA-256, in ``sha256sum`` format, so the copy can
                                 be checked with ``--verify`` or with ``sha256sum -c SHA256SUMS``

Downloading uses huggingface_hub, which ``tokenizers`` already installs. The app itself never
downloads unless $ATTENTION_LAB_FETCH_MODEL is set: then ``fetched_model`` runs this fetch once,
for that one pinned model (``model_choice.resolve_model_name``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .encoder_files import EncoderConfig, read_encoder, tokenize
from .model_files import (
    CONFIG_FILE,
    FETCH_ENV,
    MODEL_ENV,
    SENTENCE_CONFIG_FILE,
    TOKENIZER_FILE,
    WEIGHTS_FILE,
    ModelUnavailable,
    check_weights,
    file_sha256,
    read_json,
    read_tokenizer,
)

CHECKSUMS_FILE = "SHA256SUMS"
FETCHED_FILE = "fetched.json"
SIDECAR_FILE = WEIGHTS_FILE + ".sha256"
REQUIRED = (CONFIG_FILE, TOKENIZER_FILE, WEIGHTS_FILE)
"""What our encoder cannot do without (``encoder_files.read_encoder``)."""

_TOP_LEVEL = re.compile(r"[^/]+\.(json|txt|model)|README\.md|" + re.escape(WEIGHTS_FILE))
_MODULE_FILE = re.compile(r"\d+_[A-Za-z]+/[^/]+\.(json|safetensors)")
_HEX = re.compile(r"[0-9a-f]{40}")


class FetchError(RuntimeError):
    """The model could not be fetched or a copy does not match its checksums; the message says why."""


def needed(name: str) -> bool:
    """Whether a file of a model repository is one the app or sentence-transformers reads.

    Top-level configs, vocabularies and ``model.safetensors``; a sentence-transformers module's
    files (``1_Pooling/config.json``). Not the other formats of the same weights.

    >>> [n for n in ("config.json", "model.safetensors", "pytorch_model.bin", "1_Pooling/config.json",
    ...              "onnx/model.onnx", "onnx/config.json", "sentencepiece.bpe.model", "tf_model.h5")
    ...  if needed(n)]
    ['config.json', 'model.safetensors', '1_Pooling/config.json', 'sentencepiece.bpe.model']
    """
    return bool(_TOP_LEVEL.fullmatch(name) or _MODULE_FILE.fullmatch(name))


def git_blob_id(data: bytes) -> str:
    """The id git gives a file's content (SHA-1 of ``blob <size>\\0`` and the bytes): what the hub
    lists for a file that is not stored in LFS.

    >>> git_blob_id(b"")  # git hash-object /dev/null
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Fetched:
    """What ``fetch`` wrote: the directory, the commit the revision named, and every file's SHA-256."""

    directory: Path
    repo_id: str
    revision: str
    commit: str
    sha256: dict[str, str]


def _endpoint(endpoint: str | None) -> str | None:
    """The hub to ask: ``endpoint``, else $HF_ENDPOINT (read now, not when huggingface_hub was imported)."""
    return endpoint or os.environ.get("HF_ENDPOINT") or None


def fetch(repo_id: str, revision: str, to: str | os.PathLike, *, endpoint: str | None = None) -> Fetched:
    """Download the files of ``repo_id`` at ``revision`` that the app needs into the new directory ``to``.

    Parameters
    ----------
    repo_id : str
        The model's id on the hub, e.g. ``sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2``.
    revision : str
        A commit (40 hex digits: the same files every time) or a branch or tag, which is resolved
        to its commit now and recorded in ``fetched.json``.
    to : path
        Where the model goes; it must not exist yet, or be an empty directory.
    endpoint : str, optional
        The hub's address; by default $HF_ENDPOINT, else huggingface.co.

    Returns
    -------
    Fetched

    Raises
    ------
    FetchError
        ``to`` is not empty; the revision lacks a file the encoder needs; a downloaded file
        differs from the hub's listing; the model is not one our encoder implements.
        (huggingface_hub's own errors pass through: no such model, revision or network.)

    Examples
    --------
    >>> from attention_core.model_files import bundled_path
    >>> try:
    ...     fetch("any/model", "main", bundled_path())
    ... except FetchError as err:
    ...     print(str(err).split(":")[0])
    refusing to write into a directory that is not empty
    """
    target = Path(to)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise FetchError(f"refusing to write into a directory that is not empty: {target}")
    from huggingface_hub import HfApi, snapshot_download

    hub = _endpoint(endpoint)
    info = HfApi(endpoint=hub).model_info(repo_id, revision=revision, files_metadata=True)
    commit = info.sha
    if commit is None:
        raise FetchError(f"the hub named no commit for {repo_id}@{revision}")
    listed = {s.rfilename: s for s in info.siblings or ()}
    names = sorted(n for n in listed if needed(n))
    missing = [n for n in REQUIRED if n not in listed]
    if missing:
        raise FetchError(
            f"{repo_id} at {commit} has no {', '.join(missing)}: the app reads a BERT model from "
            f"{', '.join(REQUIRED)} (a model with pytorch_model.bin only needs a revision that has the weights as "
            f"safetensors)"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(target.name + ".partial")
    if staging.exists():
        shutil.rmtree(staging)  # what an interrupted fetch left
    try:
        snapshot_download(repo_id, revision=commit, local_dir=staging, allow_patterns=names, endpoint=hub)
        shutil.rmtree(staging / ".cache", ignore_errors=True)  # huggingface_hub's own bookkeeping
        sha256 = {}
        for name in names:
            sha256[name] = _check_against_listing(staging, name, listed[name])
        check_readable(staging)
        (staging / FETCHED_FILE).write_text(
            json.dumps({"repo_id": repo_id, "revision": revision, "commit": commit}, indent=2) + "\n", encoding="utf-8"
        )
        (staging / SIDECAR_FILE).write_text(f"{sha256[WEIGHTS_FILE]}  {WEIGHTS_FILE}\n", encoding="utf-8")
        for extra in (FETCHED_FILE, SIDECAR_FILE):
            sha256[extra] = file_sha256(staging / extra)
        write_checksums(staging, sha256)
        if target.exists():
            target.rmdir()  # empty, checked above
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Fetched(target, repo_id, revision, commit, dict(sorted(sha256.items())))


def _check_against_listing(directory: Path, name: str, listed) -> str:
    """The SHA-256 of a downloaded file, after checking it against the hub's listing: the size,
    and the SHA-256 of an LFS file or the git blob id of another."""
    path = directory / name
    if not path.is_file():
        raise FetchError(f"{name} was listed by the hub but not downloaded")
    digest = file_sha256(path)
    lfs = getattr(listed, "lfs", None)
    size = path.stat().st_size
    if lfs is not None:
        if (lfs.sha256, lfs.size) != (digest, size):
            raise FetchError(
                f"{name}: downloaded {size} bytes, SHA-256 {digest}; the hub lists {lfs.size}, {lfs.sha256}"
            )
    elif listed.blob_id and listed.blob_id != git_blob_id(path.read_bytes()):
        raise FetchError(f"{name}: the downloaded file is not the blob the hub lists ({listed.blob_id})")
    return digest


def check_readable(directory: str | os.PathLike) -> None:
    """Refuse a model our encoder would read wrongly: the config checks of
    ``encoder_files.EncoderConfig.from_files`` (``model_type`` "bert", exact GELU, absolute positions,
    sizes that fit), and a tokenizer.json that ``tokenizers`` reads.

    An XLM-RoBERTa model (``model_type`` "xlm-roberta") has BERT's layers but counts positions
    from ``pad_token_id + 1``: read as BERT, every number would be off.

    >>> from attention_core.model_files import bundled_path
    >>> check_readable(bundled_path())  # the bundled model: no error
    """
    try:
        EncoderConfig.from_files(read_json(directory, CONFIG_FILE), read_json(directory, SENTENCE_CONFIG_FILE))
        read_tokenizer(directory)
    except ModelUnavailable as err:
        raise FetchError(f"the app cannot read this model: {err}") from err


def write_checksums(directory: str | os.PathLike, sha256: dict[str, str]) -> Path:
    """Write ``SHA256SUMS``: one ``<sha256>  <name>`` line a file, sorted, as ``sha256sum`` prints.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     text = write_checksums(d, {"b.json": "1" * 64, "a.json": "0" * 64}).read_text()
    >>> print(text.replace("0" * 64, "000…").replace("1" * 64, "111…"))
    000…  a.json
    111…  b.json
    <BLANKLINE>
    """
    path = Path(directory) / CHECKSUMS_FILE
    path.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(sha256.items())), encoding="utf-8")
    return path


def read_checksums(directory: str | os.PathLike) -> dict[str, str]:
    """``SHA256SUMS`` of ``directory`` as {name: sha256}; a line that is not ``<64 hex> <name>``, or
    a name outside the directory, is a FetchError.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = write_checksums(d, {"config.json": "ab" * 32})
    ...     read_checksums(d) == {"config.json": "ab" * 32}
    True
    """
    path = Path(directory) / CHECKSUMS_FILE
    if not path.is_file():
        raise FetchError(f"no {CHECKSUMS_FILE} in {directory}: fetch the model with `python -m attention_core.fetch`")
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        digest, _, name = line.partition(" ")
        name = name[1:] if name[:1] in (" ", "*") else name  # sha256sum: two spaces, or " *" in binary mode
        parts = Path(name).parts
        if not re.fullmatch(r"[0-9a-f]{64}", digest) or not name or Path(name).is_absolute() or ".." in parts:
            raise FetchError(f"{path}, line {number}: expected '<sha256>  <file in the directory>', got {line!r}")
        found[name] = digest
    return found


def verify(directory: str | os.PathLike) -> list[str]:
    """Check a copied model directory against its ``SHA256SUMS``: the problems found, [] when every
    listed file is there with its SHA-256. Files that are not listed are not checked (a copy may
    gain a ``.DS_Store``); the app reads only listed ones.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "config.json").write_text("{}")
    ...     _ = write_checksums(d, {"config.json": file_sha256(Path(d) / "config.json"), "tokenizer.json": "0" * 64})
    ...     verify(d)
    ['tokenizer.json: missing']
    """
    problems = []
    for name, expected in read_checksums(directory).items():
        path = Path(directory) / name
        if not path.is_file():
            problems.append(f"{name}: missing")
        elif (actual := file_sha256(path)) != expected:
            problems.append(f"{name}: SHA-256 {actual}, expected {expected} (damaged in the copy: copy it again)")
    return problems


# --------------------------------------------------------------------------- the opt-in fetch at start

FETCH_DIR_ENV = "ATTENTION_LAB_FETCH_DIR"
"""Where fetched models are kept, one ``<owner>--<name>/<commit>`` directory each
(default: ~/.cache/attention-lab/models)."""

RETRY_AFTER_S = 300.0
"""After a failed fetch, the app teaches with the toy embedder and tries again this much later,
not on every rerun (each try is a child process asking the hub)."""

_READY: dict[str, Path] = {}
"""fetched_model's memo: a setting → its directory, fetched (or found) and verified in this process."""
_FAILED: dict[str, tuple[float, BaseException]] = {}
"""A setting → (when it failed, the ModelUnavailable it raised)."""
_FETCH_LOCK = threading.Lock()


def parse_setting(setting: str) -> tuple[str, str]:
    """``owner/name@<commit>`` as (repo id, commit); anything else is a ValueError that says the form.

    >>> parse_setting("sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2@" + "0" * 40)[0]
    'sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2'
    """
    repo_id, _, commit = setting.strip().rpartition("@")
    if not re.fullmatch(r"\w[\w.-]*/\w[\w.-]*", repo_id) or not _HEX.fullmatch(commit):
        raise ValueError(
            f"{FETCH_ENV} must be owner/name@<commit> with the full 40-hex-digit commit (a pinned revision), "
            f"got {setting!r}"
        )
    return repo_id, commit


def fetch_directory(repo_id: str, commit: str) -> Path:
    """Where ``fetched_model`` keeps ``repo_id`` at ``commit``.

    >>> fetch_directory("owner/name", "0" * 40).parts[-2:] == ("owner--name", "0" * 40)
    True
    """
    root = os.environ.get(FETCH_DIR_ENV, "").strip() or os.path.join("~", ".cache", "attention-lab", "models")
    return Path(os.path.expanduser(root)) / repo_id.replace("/", "--") / commit


def fetched_model(setting: str) -> Path:
    """The directory of the model named by ``setting`` (``owner/name@<commit>``): fetched once, in a
    child process (``python -m attention_core.fetch``, with the hub's offline switch that the app
    sets removed), then checked against its SHA256SUMS once per process.

    A second process (``deploy/serve.sh``) waits for the first one's fetch (a file lock) and finds
    it done. A failure is remembered for ``RETRY_AFTER_S``.

    Raises
    ------
    ModelUnavailable
        "missing" (a malformed setting, or the fetch failed: no network, no such model or
        commit, a model the encoder cannot read), "checksum" (a fetched file changed since).

    Examples
    --------
    >>> try:
    ...     fetched_model("owner/name@main")
    ... except Exception as err:
    ...     print(err.reason, str(err).split(" with ")[0])
    missing ATTENTION_LAB_FETCH_MODEL must be owner/name@<commit>
    """
    known = _READY.get(setting)
    if known is not None:
        return known
    with _FETCH_LOCK:
        known = _READY.get(setting)
        if known is not None:
            return known
        failed = _FAILED.get(setting)
        if failed is not None and time.monotonic() - failed[0] < RETRY_AFTER_S:
            raise failed[1]
        try:
            directory = _fetch_and_verify(setting)
        except ModelUnavailable as err:
            _FAILED[setting] = (time.monotonic(), err)
            raise
        _FAILED.pop(setting, None)
        _READY[setting] = directory
        return directory


def _fetch_and_verify(setting: str) -> Path:
    try:
        repo_id, commit = parse_setting(setting)
    except ValueError as err:
        raise ModelUnavailable(str(err), reason="missing") from None
    directory = fetch_directory(repo_id, commit)
    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f"{commit}.lock", "a+b") as lock:
        import fcntl  # Linux and macOS; the opt-in is for a server (the Cloud runs Linux)

        fcntl.flock(lock, fcntl.LOCK_EX)  # another app process fetching the same model: wait for it
        if not (directory / CHECKSUMS_FILE).is_file():
            shutil.rmtree(directory, ignore_errors=True)  # a fetch that never finished
            env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
            child = [
                sys.executable,
                "-m",
                "attention_core.fetch",
                repo_id,
                "--revision",
                commit,
                "--to",
                str(directory),
            ]
            done = subprocess.run(
                child,
                cwd=Path(__file__).resolve().parents[1],  # where attention_core is importable
                env=env,
                capture_output=True,
                text=True,
                timeout=3600,
                check=False,
            )
            if done.returncode:
                said = (done.stderr.strip().splitlines() or ["no message"])[-1]
                raise ModelUnavailable(
                    f"fetching {repo_id} at {commit} ({FETCH_ENV}) failed: {said}", reason="missing", path=directory
                )
    try:
        problems = verify(directory)
        recorded = json.loads((directory / FETCHED_FILE).read_text(encoding="utf-8")).get("commit")
    except (FetchError, OSError, ValueError) as err:
        problems, recorded = [str(err)], commit
    if recorded != commit:
        problems.append(f"{FETCHED_FILE} names commit {recorded}, not {commit}")
    if problems:
        raise ModelUnavailable(
            f"the fetched model in {directory} does not match its {CHECKSUMS_FILE}: {'; '.join(problems)}; "
            "delete the directory to fetch it again",
            reason="checksum",
            path=directory,
        )
    return directory


def forget_fetched() -> None:
    """Forget what ``fetched_model`` verified or saw fail in this process (tests; a restart does the same)."""
    with _FETCH_LOCK:
        _READY.clear()
        _FAILED.clear()


CHINESE_SAMPLE = "小猫没有过马路，因为它太累了"
"""The issue's sentence: the bundled English model turns 10 of its 14 pieces into [UNK]."""


def describe(directory: str | os.PathLike) -> str:
    """One line for the operator: what our encoder reads in ``directory`` and how it cuts a Chinese
    sentence (how many pieces are unknown to the model). The weights are checked and read as the
    app reads them (``encoder_files.read_encoder``); cutting a sentence needs no forward pass.

    >>> from attention_core.model_files import bundled_path
    >>> print(describe(bundled_path()).split(";")[0])
    6 layers × 12 heads, 30522 word pieces
    """
    check_weights(directory)
    encoder = read_encoder(Path(directory))
    tokens, ids, _ = tokenize(encoder, CHINESE_SAMPLE)
    pieces = [i for i, token in zip(ids, tokens) if token not in encoder.markers]  # [CLS], [SEP] out
    return (
        f"{encoder.config.n_layers} layers × {encoder.config.n_heads} heads, {encoder.word.shape[0]} word pieces; "
        f"{CHINESE_SAMPLE!r} → {len(pieces)} pieces, {sum(int(i) == encoder.unk_id for i in pieces)} of them unknown "
        "to the model: "
        f"{' '.join(tokens)}"
    )


def main(argv: list[str] | None = None) -> int:
    """The command line (the module's docstring shows it); returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m attention_core.fetch",
        description="Fetch a sentence-transformers model for Attention Lab at a pinned revision, or verify a copy.",
    )
    parser.add_argument("repo_id", nargs="?", help="the model's id on the hub, e.g. sentence-transformers/NAME")
    parser.add_argument("--revision", help="a commit (40 hex digits), or a branch or tag to resolve to one now")
    parser.add_argument("--to", type=Path, help="the new directory to write the model into")
    parser.add_argument("--endpoint", help="the hub's address (default: $HF_ENDPOINT, else huggingface.co)")
    parser.add_argument(
        "--verify", type=Path, metavar="DIR", help="check a copied model directory against its SHA256SUMS"
    )
    args = parser.parse_args(argv)
    try:
        if args.verify is not None:
            if args.repo_id or args.to:
                parser.error("--verify takes only the directory")
            problems = verify(args.verify)
            for problem in problems:
                print(f"FAILED {problem}", file=sys.stderr)
            if problems:
                print(f"{args.verify}: {len(problems)} file(s) do not match {CHECKSUMS_FILE}", file=sys.stderr)
                return 1
            print(f"{args.verify}: every file matches {CHECKSUMS_FILE}")
        else:
            if not (args.repo_id and args.revision and args.to):
                parser.error("give the model's id, --revision and --to (or --verify DIR)")
            if not _HEX.fullmatch(args.revision):
                print(f"note: {args.revision!r} is not a commit; it is resolved now and recorded in {FETCHED_FILE}")
            done = fetch(args.repo_id, args.revision, args.to, endpoint=args.endpoint)
            print(f"{done.repo_id} at commit {done.commit}: {len(done.sha256)} files in {done.directory}")
        directory = (args.verify if args.verify is not None else args.to).resolve()
        print(describe(directory))
        print(f"to use it: {MODEL_ENV}={directory} streamlit run app.py")
    except FetchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # noqa: BLE001 - the hub's answer (no such model or revision, no network), in one line
        print(f"error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
