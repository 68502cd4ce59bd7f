"""Read-only arrays: every array the core hands to a page is frozen, so a page (or a figure that
reorders rows in place) can never change a trace, a lesson or the model's weights under
another page that shows the same numbers.

>>> w = frozen([0.25, 0.75])
>>> w.flags.writeable, w.dtype
(False, dtype('float64'))
"""

from __future__ import annotations

import numpy as np


def frozen(x, dtype=np.float64, *, copy: bool = True) -> np.ndarray:
    """``x`` as a read-only array of ``dtype`` (``None``: the dtype ``x`` has).

    ``copy=True`` (the default) is for arrays a caller handed in: their owner may still write
    to them, so the result is a frozen copy. ``copy=False`` is for arrays just computed and
    held by nobody else (or views of data that is read-only already): they are frozen in
    place, which saves a copy of every T×T matrix, and converted once if the dtype differs.

    >>> a = np.zeros(2)
    >>> frozen(a) is a, frozen(a, copy=False) is a, a.flags.writeable
    (False, True, False)
    >>> frozen(np.arange(3), dtype=None, copy=False).dtype
    dtype('int64')
    """
    target = np.asarray(x).dtype if dtype is None else np.dtype(dtype)
    if copy or not isinstance(x, np.ndarray) or x.dtype != target:
        x = np.array(x, dtype=target)
    x.flags.writeable = False
    return x
