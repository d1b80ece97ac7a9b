"""Input limits, in a module that imports nothing: the command line's help states them without
loading sympy (``identcheck --help`` starts in a tenth of a second); the modules that enforce them
import them from here (:mod:`~identcheck.terms.type1`, :mod:`~identcheck.scan.report`)."""

__all__ = ["MAX_COUNT", "MAX_DIM", "MAX_VALUES"]

MAX_DIM = 6  # input dimension d
MAX_COUNT = 201  # values per scanned parameter
MAX_VALUES = 2601  # scanned grid values in all (51 × 51)
