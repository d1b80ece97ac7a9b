"""Sphinx configuration of the identcheck documentation site.

Build (warnings are errors)::

    python3 -m pip install -e ".[docs]"
    python3 -m sphinx -W --keep-going -b html docs docs/_build/html

The markdown pages are read as they are (myst-parser, through myst-nb); the tutorial notebook is
rendered from its stored outputs (never executed here: tests/test_tutorial.py keeps them fresh);
the API reference is generated from the docstrings of the public names only (docs/_ext/public_api.py)
and the CLI reference from the argparse parsers (docs/_ext/cli_reference.py), so neither can drift.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # this checkout's packages, installed or not

project = "identcheck"
author = "the identcheck developers"
copyright = "2026, the identcheck developers"

import identcheck  # noqa: E402  (this checkout's, by the path above)

release = version = identcheck.__version__  # the package metadata's, written once in pyproject.toml

extensions = [
    "myst_nb",  # markdown (myst-parser) and notebooks
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # numpydoc-style sections (Parameters, Returns, …) in the docstrings
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "cli_reference",  # the CLI page, generated from the argparse parsers
    "public_api",  # the API pages: one entry per name in a module's __all__
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "slurm", "examples"]

# markdown as it is: GitHub-style heading anchors (links like method.md#the-rule), $…$ math, tables
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 4
suppress_warnings = ["myst.header"]  # pages written for GitHub start at ## in places
smartquotes = False  # text as written: "--json" stays two hyphens, as on GitHub and in --help

# the tutorial: rendered from the outputs stored in docs/tutorial.ipynb
nb_execution_mode = "off"
nb_output_stderr = "remove"
# a result's markdown (its tables) rendered as MyST, as Jupyter renders it; commonmark has no tables
nb_render_markdown_format = "myst"

# the API reference: numpydoc-style docstrings through napoleon, public names only
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": False}
autodoc_preserve_defaults = True
autodoc_type_aliases = {}
nitpicky = False

html_theme = "pydata_sphinx_theme"
html_title = "identcheck"
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 9,
    "show_toc_level": 2,
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"
# the theme's colour mode before a reader picks one (empty, its script logs a console error)
html_context = {"default_mode": "auto"}
html_show_sourcelink = False
