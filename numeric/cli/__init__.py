"""numeric's command lines: the program (:mod:`~numeric.cli.main.main`), its parser, flags and the names it offers."""
