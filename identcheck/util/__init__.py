"""Helpers every layer may use, importing nothing above them: budgets, limits, interrupts, the worker
pool, progress lines, output paths, figures, the lazy package table, and text formatting."""
