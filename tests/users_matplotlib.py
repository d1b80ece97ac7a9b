"""The caller's matplotlib as a notebook user has it, for the figure tests of both packages.

A library call must leave it alone (docs/architecture.md): the backend the user chose, pyplot's list of
figures and its current figure. ``users_matplotlib()`` switches pyplot to a backend no library
would choose (``svg``), opens the user's own figure, runs the body, and then checks that all
three are as they were; afterwards it closes the user's figure and restores the backend.
"""

import contextlib


@contextlib.contextmanager
def users_matplotlib():
    import matplotlib
    import matplotlib.pyplot as plt

    before = matplotlib.get_backend()
    plt.switch_backend("svg")
    mine = plt.figure()
    try:
        yield mine
        assert matplotlib.get_backend() == "svg"
        assert plt.get_fignums() == [mine.number]
        assert plt.gcf() is mine
    finally:
        plt.close(mine)
        plt.switch_backend(before)


def is_png(data: bytes) -> bool:
    return data[:8] == b"\x89PNG\r\n\x1a\n"
