"""The exception Turi Create's toolkits raise, `ToolkitError`, with `ValueError` and `TypeError`
flavours so that code catching either (as Python convention asks) catches these too."""


class ToolkitError(Exception):
    """A bad argument or data set given to a table or toolkit: the message names the argument."""


class ToolkitValueError(ToolkitError, ValueError):
    """A value outside what the argument allows (a fraction outside (0, 1), a missing column, …)."""


class ToolkitTypeError(ToolkitError, TypeError):
    """A value of the wrong type (a mixed-type column, a non-callable function, …)."""
