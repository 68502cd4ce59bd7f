"""Class codes, teacher tokens and student keys.

A class code is what a room types from the projector: ``CODE_LENGTH`` characters of
``ALPHABET``, which leaves out the characters a room confuses (0/O, 1/I/L). Typed codes are read
forgivingly (``normalise_code``: lower case, spaces and dashes) but never guessed at.
The teacher's token is a long secret (``new_token``); the store keeps only its SHA-256
(``token_hash``), so a copy of the database gives no teacher rights.

>>> len(new_code()) == CODE_LENGTH and set(new_code()) <= set(ALPHABET)
True
>>> normalise_code(" k7m-3pq "), normalise_code("K7M3P0"), normalise_code("<b>")
('K7M3PQ', None, None)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""31 characters: the digits and capital letters without 0, 1, O, I and L (look-alikes)."""
CODE_LENGTH = 6
"""31^6 ≈ 8.9 × 10^8 codes: at the failed-join limit (store.MAX_FAILED_JOINS a minute) a script
finds one of 100 open classes in about 150 000 minutes on average."""
MAX_TYPED = 32
"""Longer input is not a code (and is not looked at further)."""


def new_code() -> str:
    """A fresh random class code (``secrets``: not predictable from the previous one)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text) -> str | None:
    """A typed or linked code as stored (upper case, no spaces or dashes), or None when it
    cannot be a code (wrong length, a character outside ``ALPHABET``, not text)."""
    if not isinstance(text, str) or len(text) > MAX_TYPED:
        return None
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def new_token() -> str:
    """A teacher's secret token: 32 random bytes, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def new_student_key() -> str:
    """A student's anonymous key: who answered, never who they are (22 characters)."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> str:
    """The SHA-256 of a token, as the store keeps it.

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(str(token).encode("utf-8")).hexdigest()


def same_token(token, stored_hash: str) -> bool:
    """Whether ``token`` hashes to ``stored_hash`` (compared in constant time).

    >>> same_token("abc", token_hash("abc")), same_token("abd", token_hash("abc")), same_token(None, "x")
    (True, False, False)
    """
    if not isinstance(token, str) or not token or len(token) > 200:
        return False
    return hmac.compare_digest(token_hash(token), stored_hash)


def valid_key(key) -> bool:
    """A student key or idempotency key as the app makes them: 8–64 URL-safe characters.

    >>> valid_key(new_student_key()), valid_key("x"), valid_key("a b c d e f g h")
    (True, False, False)
    """
    return isinstance(key, str) and 8 <= len(key) <= 64 and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
