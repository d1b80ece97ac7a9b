"""The ``public-api`` directive: the API reference of one module's public names, read from ``__all__``.

In a page::

    ```{public-api} identcheck
    :see-also: identcheck.conditions
    ```

expands to one autodoc entry per name of ``identcheck.__all__``, in that order — a class with its
public members, a function, or a data entry with its ``#:`` comment (without its value, which may be
machine-specific) —
(in an ``eval-rst`` block: the directive is for the site's markdown pages, and autodoc writes
reStructuredText) so the reference lists exactly the public API and grows with it: a name added to ``__all__`` gets
its entry at the next build, a private helper never appears. The docstrings are numpydoc style,
read by napoleon; a public name without a docstring is a warning (an error in the ``-W`` build).

``:see-also: MODULE`` lists the names that are the same objects as names of MODULE's ``__all__``
(documented on that page) as links instead of documenting them twice.
"""

import importlib
import inspect
import re
import sys

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)


def public_names(module_name: str) -> list[str]:
    """The names of ``module_name.__all__``, in their order."""
    return list(importlib.import_module(module_name).__all__)


def _kind(obj) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if callable(obj) and (inspect.isfunction(obj) or hasattr(obj, "__wrapped__")):
        return "function"
    return "data"


def data_doc(module_name: str, name: str, obj) -> list[str]:
    """The ``#:`` comment (or the string after the assignment) that documents the data ``name``, read
    from the module that defines it: ``module_name`` itself or one of its submodules holding the same
    object (a package that re-exports, or imports its names on first use); failing that, the comment
    after ``NAME = …`` on its line. ``[]`` when there is none —
    an object's own docstring would be its type's (a dict's, a tuple's), not the name's."""
    candidates = [module_name] + sorted(
        m for m in list(sys.modules) if m.startswith(module_name.split(".")[0] + ".") and m != module_name
    )
    for candidate in candidates:
        module = sys.modules.get(candidate)
        if module is None or getattr(module, name, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except Exception:  # no source (a compiled or namespace module)
            continue
        if ("", name) in docs:
            return [line for line in docs[("", name)] if line is not None]
        trailing = _trailing_comment(module, name)
        if trailing:
            return [trailing]
    return []


def _trailing_comment(module, name: str) -> str:
    """The comment after ``NAME = …`` on its line, the documentation of a constant written that way."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return ""
    match = re.search(rf"^{re.escape(name)}\s*(?::[^=]*)?=[^#\n]*#\s*(.+)$", source, re.M)
    return match.group(1).strip() if match else ""


class PublicAPI(SphinxDirective):
    required_arguments = 1
    option_spec = {"see-also": lambda text: text.strip()}

    def run(self):
        module_name = self.arguments[0]
        module = importlib.import_module(module_name)
        elsewhere = {}
        if "see-also" in self.options:
            other = importlib.import_module(self.options["see-also"])
            elsewhere = {id(getattr(other, n)): f"{other.__name__}.{n}" for n in other.__all__}
        rst, shared = [], []
        for name in public_names(module_name):
            obj = getattr(module, name)
            qualified = f"{module_name}.{name}"
            if id(obj) in elsewhere:
                shared.append(f"{{obj}}`{name} <{elsewhere[id(obj)]}>`")
                continue
            kind = _kind(obj)
            if kind == "data":
                doc = data_doc(module_name, name, obj)
                if not doc:
                    logger.warning(f"public name {qualified} has no #: comment", location=self.get_location())
                rst += [f".. py:data:: {qualified}", "   :type: " + type(obj).__name__, ""]
                rst += ["   " + line if line else "" for line in doc] + [""]
            elif kind == "function":
                rst += [f".. autofunction:: {qualified}", ""]
            else:
                rst += [f".. autoclass:: {qualified}", "   :members:", "   :show-inheritance:", ""]
            if kind != "data" and not inspect.getdoc(obj):
                logger.warning(f"public name {qualified} has no docstring", location=self.get_location())
        lines = ["```{eval-rst}", *rst, "```"]  # autodoc writes reStructuredText
        if shared:
            lines = [f"Documented with {self.options['see-also']}: " + ", ".join(shared) + ".", ""] + lines
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=f"<public-api {module_name}>"), self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("public-api", PublicAPI)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
