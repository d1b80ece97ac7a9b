"""The ``identcheck`` command line: its parser, its main function and what both programs share (error
lines, exit codes, interrupts). Importing this package loads nothing; :mod:`.main` is the entry point."""
