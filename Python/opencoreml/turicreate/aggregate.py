"""Turi Create's `aggregate` operators for `SFrame.groupby`: each names the column it reads (none
for COUNT) and how the group's values become one."""

from __future__ import annotations


class _Aggregate:
    def __init__(self, kind, column=None):
        self.kind = kind
        self.column = column

    def __repr__(self):
        return f"{self.kind}({self.column or ''})"


def COUNT():
    """The number of rows in the group."""
    return _Aggregate("COUNT")


def SUM(column):
    return _Aggregate("SUM", column)


def MEAN(column):
    return _Aggregate("MEAN", column)


AVG = MEAN


def MIN(column):
    return _Aggregate("MIN", column)


def MAX(column):
    return _Aggregate("MAX", column)


def STD(column):
    """The population standard deviation (Turi's STDV)."""
    return _Aggregate("STD", column)


STDV = STD


def VAR(column):
    """The population variance (Turi's VARIANCE)."""
    return _Aggregate("VAR", column)


VARIANCE = VAR


def COUNT_DISTINCT(column):
    return _Aggregate("COUNT_DISTINCT", column)


def CONCAT(column):
    """The group's values as a list, in row order."""
    return _Aggregate("CONCAT", column)


def SELECT_ONE(column):
    """One of the group's values (the first, in row order)."""
    return _Aggregate("SELECT_ONE", column)
