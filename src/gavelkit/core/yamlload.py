"""YAML loading that keeps source positions, flags duplicate keys and refuses alias bombs.

PyYAML keeps the last of two equal keys and expands aliases lazily, so a
"billion laughs" document loads fine and explodes in whatever walks it later.
This loader composes each document with the C parser, measures how large it
would be once aliases are expanded, and only then builds Python objects: maps
become `PosDict` and lists `PosList`, which remember where every key and item
stood in the file (1-based line and column, already shifted to the enclosing
file when the YAML came from a Markdown fence).
"""

from __future__ import annotations

from collections.abc import Iterator

import yaml

from gavelkit.core.errors import InputError

TYPE_CHECKING = False  # typing costs start-up time that agents pay on every call
if TYPE_CHECKING:
    from typing import Any

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_EXPANDED_NODES = 200_000
MAX_DEPTH = 200

Pos = tuple[int, int]


class PosDict(dict):  # type: ignore[type-arg]
    """A mapping that knows where it and each of its keys and values stood."""

    __slots__ = ("key_pos", "pos", "val_pos")

    def __init__(self) -> None:
        super().__init__()
        self.pos: Pos = (0, 0)
        self.key_pos: dict[Any, Pos] = {}
        self.val_pos: dict[Any, Pos] = {}

    def kpos(self, key: Any) -> Pos:
        return self.key_pos.get(key, self.pos)

    def vpos(self, key: Any) -> Pos:
        return self.val_pos.get(key, self.key_pos.get(key, self.pos))


class PosList(list):  # type: ignore[type-arg]
    """A sequence that knows where it and each item stood."""

    __slots__ = ("item_pos", "pos")

    def __init__(self) -> None:
        super().__init__()
        self.pos: Pos = (0, 0)
        self.item_pos: list[Pos] = []

    def ipos(self, i: int) -> Pos:
        return self.item_pos[i] if 0 <= i < len(self.item_pos) else self.pos


class DuplicateKey:
    __slots__ = ("col", "first_line", "key", "line")

    def __init__(self, key: str, line: int, col: int, first_line: int) -> None:
        self.key = key
        self.line = line
        self.col = col
        self.first_line = first_line


class _Loader(_Base):  # type: ignore[misc, valid-type]
    def __init__(self, stream: str, line0: int, col0: int) -> None:
        super().__init__(stream)
        self._line0 = line0
        self._col0 = col0
        self.duplicates: list[DuplicateKey] = []

    def _mark(self, node: yaml.Node) -> Pos:
        m = node.start_mark
        return (m.line + 1 + self._line0, m.column + 1 + (self._col0 if m.line >= 0 else 0))

    def construct_positioned_map(self, node: yaml.MappingNode) -> Iterator[PosDict]:
        data = PosDict()
        data.pos = self._mark(node)
        yield data
        explicit = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
        self.flatten_mapping(node)
        first_explicit: dict[Any, Pos] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=False)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    "found an unhashable key", key_node.start_mark) from None
            kp = self._mark(key_node)
            if id(key_node) in explicit:
                if key in first_explicit:
                    self.duplicates.append(
                        DuplicateKey(str(key), kp[0], kp[1], first_explicit[key][0]))
                else:
                    first_explicit[key] = kp
            data[key] = self.construct_object(value_node, deep=False)
            data.key_pos[key] = kp
            data.val_pos[key] = self._mark(value_node)

    def construct_positioned_seq(self, node: yaml.SequenceNode) -> Iterator[PosList]:
        data = PosList()
        data.pos = self._mark(node)
        yield data
        for child in node.value:
            data.append(self.construct_object(child, deep=False))
            data.item_pos.append(self._mark(child))


_Loader.add_constructor("tag:yaml.org,2002:map", _Loader.construct_positioned_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _Loader.construct_positioned_seq)


def _expanded_size(root: yaml.Node) -> int:
    """Node count after alias expansion; raises ValueError on cycles or excess depth."""
    shared = [False]
    try:
        return _expanded(root, shared)
    except _TooBig:
        if shared[0]:
            raise ValueError(f"expands to more than {MAX_EXPANDED_NODES} nodes through aliases "
                             "(alias bomb?)") from None
        raise ValueError(f"has more than {MAX_EXPANDED_NODES} values (limit; split the "
                         "document)") from None


class _TooBig(Exception):
    pass


def _expanded(root: yaml.Node, shared: list[bool]) -> int:
    """Node count with aliases expanded, computed once per node (iteratively: no recursion
    limit), raising _TooBig past the cap and ValueError on a loop or on too deep nesting."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        if done:
            on_path.discard(nid)
            size[nid] = _sum_sizes(node, size)
        elif nid in size:
            shared[0] = True
        else:
            if nid in on_path:
                raise ValueError("recursive alias (a node that contains itself)")
            if depth > MAX_DEPTH:
                raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
            on_path.add(nid)
            stack.append((node, depth, True))
            stack.extend(_unsized_children(node, depth, size, on_path, shared))
    return size[id(root)]


def _sum_sizes(node: yaml.Node, size: dict[int, int]) -> int:
    total = 1
    for child in _children(node):
        total += size[id(child)]
        if total > MAX_EXPANDED_NODES:
            raise _TooBig
    return total


def _unsized_children(node: yaml.Node, depth: int, size: dict[int, int], on_path: set[int],
                      shared: list[bool]) -> list[tuple[yaml.Node, int, bool]]:
    todo = []
    for child in _children(node):
        cid = id(child)
        if cid in on_path:
            raise ValueError("recursive alias (a node that contains itself)")
        if cid in size:
            shared[0] = True
        else:
            todo.append((child, depth + 1, False))
    return todo


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


class YamlDoc:
    """One YAML document with where it began in the enclosing file."""

    __slots__ = ("col", "data", "duplicates", "line")

    def __init__(self, data: Any, line: int, col: int, duplicates: list[DuplicateKey]) -> None:
        self.data = data
        self.line = line
        self.col = col
        self.duplicates = duplicates


def load_documents(text: str, path: str, line0: int = 0, col0: int = 0) -> list[YamlDoc]:
    """Parse every `---` document in `text`; None documents are dropped.

    `line0`/`col0` shift positions (a fence's first content line and indent).
    Raises InputError for syntax errors, alias bombs and recursive aliases.
    """
    loader = _Loader(text, line0, col0)
    docs: list[YamlDoc] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            doc = _document(loader, node, path) if node is not None else None
            if doc is not None:
                docs.append(doc)
    except (yaml.YAMLError, RecursionError) as exc:
        raise _syntax_error(exc, path, line0, col0) from None
    finally:
        loader.dispose()
    return docs


def _syntax_error(exc: BaseException, path: str, line0: int, col0: int) -> InputError:
    if isinstance(exc, RecursionError):
        return InputError(path, "YAML nested too deeply", line0 + 1, 1, code="GK-Y002")
    if not isinstance(exc, yaml.MarkedYAMLError):
        return InputError(path, f"YAML error: {exc}", line0 + 1, 1, code="GK-Y001")
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 + line0 if mark else line0 + 1
    col = mark.column + 1 + col0 if mark else 1
    problem = " ".join(str(x) for x in (exc.context, exc.problem) if x)
    return InputError(path, f"YAML syntax error: {problem or exc}", line, col, code="GK-Y001")


def _document(loader: _Loader, node: yaml.Node, path: str) -> YamlDoc | None:
    """One composed document, sized before it is built (alias bombs never expand)."""
    try:
        _expanded_size(node)
    except ValueError as exc:
        line, col = loader._mark(node)
        raise InputError(path, f"YAML document {exc}", line, col, code="GK-Y002") from None
    before = len(loader.duplicates)
    try:
        data = loader.construct_document(node)
    except ValueError as exc:  # int("9" * 5000): over Python's 4300-digit limit
        line, col = loader._mark(node)
        raise InputError(path, f"YAML value cannot be converted: {exc}", line, col,
                         code="GK-Y002") from None
    if data is None:
        return None
    line, col = loader._mark(node)
    return YamlDoc(data, line, col, loader.duplicates[before:])
