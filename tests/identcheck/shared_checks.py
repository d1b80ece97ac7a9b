"""check() results shared by the tests of one session (results are frozen; ``to_dict`` builds new
dicts, so a test may alter what it reads). Only for tests that read a result, never for tests
of the computation's side effects (caches, budgets, timing)."""

from functools import lru_cache

from identcheck import check


def checked(phi, condition="type1", dim=2, certify=False):
    return _checked(phi, condition, dim, certify)  # one cache key however the arguments are spelled


@lru_cache(maxsize=None)
def _checked(phi, condition, dim, certify):
    return check(phi, condition=condition, dim=dim, certify=certify)
