"""Read-only views of parsed model objects that are shared between callers.

The ESPN client keeps the League, ProSchedule, Matchup and Player objects it parsed next to
the cached JSON and hands the same objects to every caller while the cache row is unchanged.
`freeze(obj)` makes such an object graph read-only in place, so a caller that changes one by
accident fails loudly (`dataclasses.FrozenInstanceError`, `TypeError`) instead of changing
the answers of every other conversation:

- dataclass instances get a read-only subclass of their class (`isinstance`, `==`,
  `repr`, `dataclasses.fields`/`asdict`/`replace` and `to_dict` behave as before);
- their lists and dicts become `ReadOnlyList` / `ReadOnlyDict` (subclasses of list / dict:
  iteration, indexing, slicing, `+` and JSON encoding work; mutating methods raise).

`copy.copy(obj)` / `copy.deepcopy(obj)` give ordinary, mutable objects (a shallow copy's
inner lists stay read-only; a deep copy is mutable throughout): that is the way to change
one. Frozen dataclasses, tuples, dates and other values are left as they are.
"""

from __future__ import annotations

import copy
import dataclasses
from datetime import date, datetime
from typing import Any, NoReturn

_READ_ONLY_CLASSES: dict[type, type] = {}
_READ_ONLY_SET: set[type] = set()


def _refuse(self: Any, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"this {type(self).__bases__[0].__name__} is shared cached data and "
                    "read-only; copy it first (list(x), dict(x), copy.deepcopy(x))")


class ReadOnlyList(list):  # type: ignore[type-arg]
    """A list whose mutating methods raise TypeError; copies are plain lists."""

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (list, (list(self),))


class ReadOnlyDict(dict):  # type: ignore[type-arg]
    """A dict whose mutating methods raise TypeError; copies are plain dicts."""

    __setitem__ = __delitem__ = __ior__ = _refuse
    update = pop = popitem = clear = setdefault = _refuse

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        return {copy.deepcopy(k, memo): copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (dict, (dict(self),))


def _read_only_class(cls: type) -> type:
    """The read-only subclass of a (non-frozen) dataclass, made once per class."""
    ro = _READ_ONLY_CLASSES.get(cls)
    if ro is not None:
        return ro
    names = tuple(f.name for f in dataclasses.fields(cls))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(
            f"cannot assign to {cls.__name__}.{name}: shared cached data is read-only "
            "(change a copy.copy() of it)")

    def __delattr__(self: Any, name: str) -> None:
        raise dataclasses.FrozenInstanceError(
            f"cannot delete {cls.__name__}.{name}: shared cached data is read-only")

    def __eq__(self: Any, other: Any) -> Any:
        if not isinstance(other, cls):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in names)

    def __copy__(self: Any) -> Any:
        new: Any = object.__new__(cls)
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self: Any, memo: dict[int, Any]) -> Any:
        new: Any = object.__new__(cls)
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def __reduce_ex__(self: Any, protocol: Any) -> tuple[Any, ...]:
        return (_rebuild, (cls, dict(self.__dict__)))

    def __new__(ro_cls: type, *args: Any, **kwargs: Any) -> Any:
        # dataclasses.replace(obj, ...) calls type(obj)(**fields): an ordinary, mutable object
        return cls(*args, **kwargs)

    ro = type(cls.__name__, (cls,), {
        "__new__": __new__, "__setattr__": __setattr__, "__delattr__": __delattr__,
        "__eq__": __eq__, "__hash__": cls.__hash__, "__copy__": __copy__,
        "__deepcopy__": __deepcopy__, "__reduce_ex__": __reduce_ex__,
        "__module__": cls.__module__, "__qualname__": cls.__qualname__, "__slots__": (),
    })
    _READ_ONLY_CLASSES[cls] = ro
    _READ_ONLY_SET.add(ro)
    return ro


def _rebuild(cls: type, state: dict[str, Any]) -> Any:
    new: Any = object.__new__(cls)
    new.__dict__.update(state)
    return new


def is_read_only(obj: Any) -> bool:
    """True for objects made read-only by `freeze`."""
    return type(obj) in _READ_ONLY_SET or isinstance(obj, ReadOnlyList | ReadOnlyDict)


def freeze(obj: Any) -> Any:
    """Make an object graph of dataclasses, lists and dicts read-only in place; returns
    the (possibly new) read-only object. Idempotent: read-only parts are not walked again."""
    return _freeze(obj, set())


#: Immutable leaf types, returned as they are without a call (the bulk of a parsed league).
_LEAVES: frozenset[type] = frozenset({str, int, float, bool, type(None), bytes, date,
                                      datetime})


def _freeze(obj: Any, seen: set[int]) -> Any:
    cls = type(obj)
    if cls in _LEAVES or cls in _READ_ONLY_SET or cls is ReadOnlyList or cls is ReadOnlyDict:
        return obj
    # lists and dicts of leaves only (stat lines, slot lists: most of a parsed league) are
    # copied without a Python-level step per item
    if cls is list:
        if _LEAVES.issuperset(map(type, obj)):
            return ReadOnlyList(obj)
        return ReadOnlyList([v if type(v) in _LEAVES else _freeze(v, seen) for v in obj])
    if cls is dict:
        if _LEAVES.issuperset(map(type, obj.values())):
            return ReadOnlyDict(obj)
        return ReadOnlyDict({k: v if type(v) in _LEAVES else _freeze(v, seen)
                             for k, v in obj.items()})
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not hasattr(obj, "__dict__"):
        return obj  # tuples, enums, other values: left as they are
    if params.frozen:  # already immutable itself; its contents may not be
        if id(obj) in seen:
            return obj
        seen.add(id(obj))
    else:
        object.__setattr__(obj, "__class__", _read_only_class(cls))  # first: no re-walk
    state = obj.__dict__
    for k, v in state.items():
        if type(v) not in _LEAVES:
            state[k] = _freeze(v, seen)
    return obj


__all__ = ["ReadOnlyDict", "ReadOnlyList", "freeze", "is_read_only"]
