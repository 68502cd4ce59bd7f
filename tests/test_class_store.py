"""The class store (classroom/store.py) on SQLite and on PostgreSQL: every test runs on both
(``class_db_url``: a SQLite file, then a database of a throwaway PostgreSQL server).

What a class must be able to trust: an answer counted exactly once (double taps, replays,
threads and processes racing), every answer still there for a new store on the same database
(a restarted server), a class that sees no other class's answers, teacher actions only with the
token, the limits, the retention time, and values validated before they are stored."""

from __future__ import annotations

import ast
import multiprocessing
import threading
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from attention_core import class_questions as cq
from attention_core.lesson import STEPS
from classroom import store as store_module
from classroom.codes import ALPHABET, CODE_LENGTH, normalise_code
from classroom.store import NotTeacher, open_store

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """A clock the test moves."""

    def __init__(self, now: float = 1_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def key(n: int, prefix: str = "student") -> str:
    return f"{prefix}-{n:04d}"


def rows(store, table) -> int:
    with store.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def right_order() -> list[str]:
    return list(STEPS)


def test_a_class_counts_each_students_answer_once(class_db_url):
    store = open_store(class_db_url)
    code, token = store.create_class("order", 3)
    assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET) and token not in code
    for n in range(3):
        assert store.join(code, key(n)).status == "joined"
    assert store.join(code.lower(), key(0)).status == "joined"  # again: no new student
    assert store.state(code).students == 3
    swapped = right_order()
    swapped[4], swapped[5] = swapped[5], swapped[4]  # softmax before the division by √d_k
    assert store.submit(code, key(0), 1, right_order(), "idem-0000-a").status == "stored"
    assert store.submit(code, key(1), 1, swapped, "idem-0001-a").status == "stored"
    assert store.submit(code, key(2), 1, swapped, "idem-0002-a").status == "stored"
    assert store.counts(code, 1) == {"right": 1, "wrong_at:5": 2}
    bars = cq.tally("order", 3, store.counts(code, 1))
    assert bars.total == 3 and [b.count for b in bars.bars if b.count] == [1, 2]


def test_a_double_tap_and_a_replay_count_once_and_never_undo_a_change(class_db_url):
    store = open_store(class_db_url)
    code, _ = store.create_class("no_scaling", 5)
    options = cq.outcomes("no_scaling", 5)
    wrong = next(o for o in options if o != "saturate")
    store.join(code, key(1))
    first = store.submit(code, key(1), 1, wrong, "tap-aaaaaaaa")
    again = store.submit(code, key(1), 1, wrong, "tap-aaaaaaaa")  # the same request twice
    assert (first.status, again.status) == ("stored", "same")
    assert store.submit(code, key(1), 1, wrong, "tap-bbbbbbbb").status == "same"  # the same answer, a new tap
    assert store.submit(code, key(1), 1, "saturate", "tap-cccccccc").status == "changed"
    replay = store.submit(code, key(1), 1, wrong, "tap-aaaaaaaa")  # the first request, replayed late
    assert replay.status == "same" and replay.outcome == "saturate"
    assert store.counts(code, 1) == {"saturate": 1}
    assert rows(store, store_module.answers) == 1


def test_racing_threads_store_one_answer_per_student(class_db_url):
    store = open_store(class_db_url)
    code, _ = store.create_class("attend", 2)
    n_keys = len(cq.outcomes("attend", 2))
    students = 24
    for n in range(students):
        store.join(code, key(n))
    results: list = []
    lock = threading.Lock()

    def tap(n: int, attempt: int) -> None:
        # every student taps three times with the same key: only one may count
        result = store.submit(code, key(n), 1, n % n_keys, f"idem-{n:04d}-x")
        with lock:
            results.append(result.status)

    threads = [threading.Thread(target=tap, args=(n, a)) for n in range(students) for a in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results.count("stored") == students and results.count("same") == 2 * students, results
    counts = store.counts(code, 1)
    assert sum(counts.values()) == students
    assert counts == {f"key:{j}": sum(1 for n in range(students) if n % n_keys == j) for j in range(n_keys)}


def _process_students(url: str, code: str, first: int, n: int) -> None:
    store = open_store(url)
    for i in range(first, first + n):
        assert store.join(code, key(i)).status == "joined"
        assert store.submit(code, key(i), 1, right_order(), f"idem-{i:04d}-p").counted


def test_two_processes_share_the_database(class_db_url):
    """What two ``serve.sh`` processes do: separate engines in separate processes."""
    store = open_store(class_db_url)
    code, _ = store.create_class("order", 9)
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_process_students, args=(class_db_url, code, 25 * p, 25)) for p in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    assert store.counts(code, 1) == {"right": 50}
    assert store.state(code).students == 50


def test_a_new_store_on_the_same_database_finds_every_answer(class_db_url):
    """A server restart: a new engine and store, nothing kept in memory."""
    first = open_store(class_db_url)
    code, token = first.create_class("order", 4)
    for n in range(5):
        first.join(code, key(n))
        first.submit(code, key(n), 1, right_order(), f"idem-{n:04d}-r")
    first.engine.dispose()
    second = open_store(class_db_url)
    assert second.migrate() == store_module.SCHEMA_VERSION  # found migrated
    assert second.counts(code, 1) == {"right": 5}
    assert second.is_teacher(code, token)
    assert second.submit(code, key(0), 1, right_order(), "idem-0000-r").status == "same"


def test_another_class_sees_none_of_the_answers(class_db_url):
    store = open_store(class_db_url)
    ours, _ = store.create_class("order", 1)
    theirs, their_token = store.create_class("order", 1)  # the same question
    store.join(ours, key(1))
    store.submit(ours, key(1), 1, right_order(), "idem-0001-o")
    assert store.counts(theirs, 1) == {}
    assert store.state(theirs).students == 0
    # a student of one class cannot answer in another with the same key
    assert store.submit(theirs, key(1), 1, right_order(), "idem-0001-t").status == "not_joined"
    assert not store.is_teacher(ours, their_token)


def test_only_the_token_changes_the_class(class_db_url):
    store = open_store(class_db_url)
    code, token = store.create_class("order", 2)
    store.join(code, key(1))
    store.submit(code, key(1), 1, right_order(), "idem-0001-a")
    for wrong in ("", None, code, key(1), token[:-1] + ("A" if token[-1] != "A" else "B"), "x" * 500):
        for action in (store.reveal, store.reset, store.close, store.ask_again):
            with pytest.raises(NotTeacher):
                action(code, wrong)
        with pytest.raises(NotTeacher):
            store.ask(code, wrong, "attend", 3)
    state = store.state(code)
    assert state.round.number == 1 and not state.round.revealed and store.counts(code, 1) == {"right": 1}
    assert store.is_teacher(code, token) and not store.is_teacher(code, key(1))


def test_reveal_closes_answers_and_ask_again_keeps_the_first_round(class_db_url):
    store = open_store(class_db_url)
    code, token = store.create_class("no_scaling", 8)
    wrong = next(o for o in cq.outcomes("no_scaling", 8) if o != "saturate")
    for n in range(4):
        store.join(code, key(n))
        store.submit(code, key(n), 1, wrong if n < 3 else "saturate", f"idem-{n:04d}-1")
    assert store.submit(code, key(0), 1, "saturate", "idem-0000-c").status == "changed"  # before the reveal
    store.reveal(code, token)
    late = store.submit(code, key(1), 1, "saturate", "idem-0001-c")
    assert late.status == "revealed" and late.outcome == wrong
    assert store.counts(code, 1) == {wrong: 2, "saturate": 2}
    second = store.ask_again(code, token)
    assert (second.number, second.again_of, second.kind, second.seed) == (2, 1, "no_scaling", 8)
    state = store.state(code)
    assert state.round.number == 2 and state.first.number == 1 and state.first.revealed
    assert store.submit(code, key(1), 1, "saturate", "idem-0001-d").status == "moved_on"  # an old page
    for n in range(4):
        assert store.submit(code, key(n), 2, "saturate", f"idem-{n:04d}-2").status == "stored"
    assert store.counts(code, 1) == {wrong: 2, "saturate": 2} and store.counts(code, 2) == {"saturate": 4}
    assert store.ask_again(code, token).again_of == 1  # a third round repeats the first
    new = store.ask(code, token, "attend", 11)
    assert (new.number, new.again_of) == (4, None) and store.state(code).first is None


def test_reset_wipes_the_round_and_close_deletes_everything(class_db_url):
    store = open_store(class_db_url)
    code, token = store.create_class("order", 2)
    other, _ = store.create_class("order", 2)
    for n in range(3):
        store.join(code, key(n))
        store.submit(code, key(n), 1, right_order(), f"idem-{n:04d}-a")
    store.join(other, key(9))
    store.submit(other, key(9), 1, right_order(), "idem-0009-a")
    store.reveal(code, token)
    store.reset(code, token)
    assert store.counts(code, 1) == {} and not store.state(code).round.revealed
    assert store.submit(code, key(0), 1, right_order(), "idem-0000-a").status == "stored"  # its key is free again
    store.close(code, token)
    assert store.state(code) is None and store.join(code, key(0)).status == "unknown"
    assert rows(store, store_module.classes) == 1 and rows(store, store_module.students) == 1  # the other class
    assert rows(store, store_module.answers) == 1 and rows(store, store_module.rounds) == 1
    assert rows(store, store_module.submissions) == 1


def test_a_class_expires_after_its_time(class_db_url):
    clock = Clock()
    store = open_store(class_db_url, clock=clock, hours=24)
    code, token = store.create_class("order", 2)
    store.join(code, key(1))
    store.submit(code, key(1), 1, right_order(), "idem-0001-a")
    clock.now += 24 * 3600 - 1
    assert store.state(code) is not None
    clock.now += 2
    assert store.state(code) is None  # unknown at once, before any purge
    assert store.join(code, key(2)).status == "unknown" and store.counts(code, 1) == {}
    assert store.submit(code, key(1), 1, right_order(), "idem-0001-b").status == "unknown"
    with pytest.raises(NotTeacher):
        store.reveal(code, token)
    store.purge_expired()  # the join above has purged it already (classes are purged as students join)
    assert rows(store, store_module.classes) == rows(store, store_module.answers) == 0
    assert rows(store, store_module.students) == rows(store, store_module.rounds) == 0


def test_failed_joins_are_rate_limited(class_db_url, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_FAILED_JOINS", 5)
    clock = Clock(60_000.0)
    store = open_store(class_db_url, clock=clock)
    code, _ = store.create_class("order", 2)
    unknown = next(c for c in ("22222A", "33333B", "44444C") if c != code)
    for n, typed in enumerate([unknown, "", "<script>", "' OR 1=1 --", unknown]):
        assert store.join(typed, key(n)).status == "unknown"
    assert store.join(code, key(10)).status == "slow_down"  # even the right code waits: nothing learnt
    clock.now += 60
    assert store.join(code, key(10)).status == "joined"


def test_limits_per_class_and_per_student(class_db_url, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_STUDENTS", 3)
    monkeypatch.setattr(store_module, "MAX_CHANGES", 2)
    store = open_store(class_db_url)
    code, _ = store.create_class("attend", 2)
    assert [store.join(code, key(n)).status for n in range(4)] == ["joined"] * 3 + ["full"]
    assert store.submit(code, key(3), 1, 0, "idem-0003-a").status == "not_joined"
    statuses = [store.submit(code, key(0), 1, j, f"idem-0000-{n}").status for n, j in enumerate([0, 1, 0, 1, 2])]
    assert statuses == ["stored", "changed", "changed", "too_many_changes", "too_many_changes"]


BAD_ANSWERS = {
    "attend": [-1, 99, 1.5, "1", None, True, [0], {"j": 0}],
    "no_scaling": ["", "SATURATE", "saturate ", 0, None, ["saturate"], "x" * 1000],
    "by_hand": [[0.1, 0.2], [0.1, 0.2, 0.3, 0.4], [float("nan"), 0.5, 0.5], [1e308, 0, 0], ["0.3", 0.3, 0.4], 0.3],
    "order": [[], ["tokens", "tokens"], ["tokens", "DROP TABLE"], list(STEPS) + ["output"], "tokens", [1, 2]],
}


@pytest.mark.parametrize("kind", cq.KINDS)
def test_values_that_are_no_option_are_refused_and_not_stored(class_db_url, kind):
    store = open_store(class_db_url)
    code, _ = store.create_class(kind, 6)
    store.join(code, key(1))
    for n, bad in enumerate(BAD_ANSWERS[kind]):
        assert store.submit(code, key(1), 1, bad, f"idem-0001-{n}").status == "invalid", bad
    for bad_round in ("1; DROP TABLE classes", None, True, 2):
        status = store.submit(code, key(1), bad_round, BAD_ANSWERS[kind][0], "idem-0001-z").status
        assert status in ("invalid", "moved_on"), bad_round
    assert rows(store, store_module.answers) == 0 and rows(store, store_module.submissions) == 0


def test_hostile_text_is_stored_as_text(class_db_url):
    store = open_store(class_db_url)
    code, _ = store.create_class("order", 2)
    nick = "Robert'); DROP TABLE classes;--"
    assert store.join(code, key(1), nickname=nick).status == "joined"
    assert store.nicknames(code) == [nick[:24]]
    assert store.join("'; DELETE FROM classes; --", key(2)).status == "unknown"
    assert rows(store, store_module.classes) == 1
    with pytest.raises(ValueError):
        store.join(code, "bad key with spaces")


def test_no_sql_is_built_from_input():
    """Every statement in the store is SQLAlchemy Core; the one text() is a constant."""
    tree = ast.parse((ROOT / "classroom" / "store.py").read_text())
    texts = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "text"]
    assert texts and all(isinstance(n.args[0], ast.Constant) for n in texts)
    driver_sql = [
        n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "exec_driver_sql"
    ]
    assert all(isinstance(a, ast.Constant | ast.IfExp) for n in driver_sql for a in n.args)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) and "SELECT" in ast.unparse(n).upper()]


def test_the_schema_is_made_once_and_a_newer_one_refused(class_db_url):
    store = open_store(class_db_url)
    assert store.migrate() == store_module.SCHEMA_VERSION
    with store.engine.begin() as conn:
        conn.execute(store_module.meta.update().values(value="99"))
    with pytest.raises(RuntimeError, match="newer"):
        store.migrate()


def test_sqlite_runs_in_wal_mode_shared_by_processes(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'classroom.sqlite3'}")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() >= 10_000
    assert (tmp_path / "data" / "classroom.sqlite3").exists()


def test_codes_are_read_forgivingly_but_never_guessed():
    assert normalise_code("k7m 3pq") == "K7M3PQ"
    for bad in ("K7M3P", "K7M3PQR", "K7M3PO", "K7M3P1", "К7М3РQ", None, 123456, "x" * 100):
        assert normalise_code(bad) is None, bad
    assert not set("01OIL") & set(ALPHABET)


def test_the_store_imports_no_streamlit_or_plotly():
    """classroom/ is usable without Streamlit (the tests, the bench): checked in a fresh interpreter."""
    import json
    import subprocess
    import sys

    code = "import json, sys, classroom.store, classroom.config; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = {m.split(".")[0] for m in json.loads(out.stdout)}
    assert not loaded & {"streamlit", "plotly", "torch"}, loaded & {"streamlit", "plotly", "torch"}
    assert "sqlalchemy" in loaded  # the check sees what it imports
