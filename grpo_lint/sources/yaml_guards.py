"""PyYAML with guards: what a hostile YAML or JSON text could do to the reader is refused first.

- Nesting: PyYAML's C composer recurses once per level and crashes the interpreter (SIGSEGV) past
  some tens of thousands; its Python constructor raises RecursionError much earlier. `prescan`
  measures the depth of the text before PyYAML sees it and refuses past MAX_NESTING.
- Aliases: `&a [*b, *b, ...]` repeated a few times describes billions of nodes in a few lines.
  `alias_problem` counts the nodes the document expands to (each alias counting what it repeats)
  and refuses past MAX_YAML_NODES, before anything is built; an alias inside its own anchor is
  refused too (the data would contain itself).
- Tags: `!!int abc`, `!!bool maybe`, `!!timestamp 2020-13-01` make PyYAML's constructors raise
  ValueError or KeyError. `GuardedLoader` turns that into a YAML error at the value's position.
- Digits: an integer of more than MAX_DIGITS digits is kept as `TooLarge` text (see numbers.py).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from grpo_lint.diagnostics import Span
from grpo_lint.limits import MAX_DIGITS, MAX_NESTING, MAX_YAML_NODES
from grpo_lint.patterns import lazy
from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.numbers import TooLarge, out_of_range

try:  # libyaml is several times faster; fall back to pure Python when it is absent.
    from yaml import CSafeLoader as _Base
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Base  # type: ignore[assignment]


class GuardedLoader(_Base):  # type: ignore[misc,valid-type]
    """The safe loader whose constructors never raise anything but a positioned YAML error."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ConstructorError, RecursionError):
            raise
        except (ValueError, TypeError, LookupError, AttributeError, ArithmeticError) as exc:
            shown = node.value if isinstance(node, yaml.ScalarNode) else "this value"
            tag = node.tag.rpartition(":")[2] if node.tag else "value"
            raise ConstructorError(
                None, None, f"`{_short(shown)}` is not a valid !!{tag} ({_short(str(exc))})", node.start_mark
            ) from None


def _construct_int(loader: SafeConstructor, node: yaml.ScalarNode) -> int | TooLarge:
    text = str(node.value)
    if sum(c.isalnum() for c in text) > MAX_DIGITS + 2:  # room for a 0x / 0o prefix
        return TooLarge(text)
    value = loader.construct_yaml_int(node)
    return TooLarge(text) if out_of_range(value) else value


GuardedLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _short(text: Any, limit: int = 40) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# A double-quoted string, a comment, or a bracket: brackets inside strings and comments do not nest.
_FLOW_TOKENS = lazy(r'"(?:[^"\\\n]|\\.)*"|(?:^|(?<=\s))#[^\n]*|[\[\]{}]', re.M)
# A line whose indentation and block indicators (`- `, `? `, `: `) could reach MAX_NESTING levels.
DEEP_LINE = lazy(r"^(?:[ \t]|[-?:][ \t]){" + str(MAX_NESTING) + "}", re.M)
_INDICATORS = lazy(r"^([ \t]*)((?:[-?:][ \t]+)*)")


def prescan(text: str) -> ReadProblem | None:
    """Refuse text that nests deeper than MAX_NESTING, before a parser recurses into it."""
    if text.count("[") + text.count("{") > MAX_NESTING:
        depth = 0
        for match in _FLOW_TOKENS.finditer(text):
            token = match.group()
            if token in "[{":
                depth += 1
                if depth > MAX_NESTING:
                    return _too_deep(text, match.start())
            elif token in "]}":
                depth = max(depth - 1, 0)
    if DEEP_LINE.search(text):
        return _block_depth(text)
    return None


def _block_depth(text: str) -> ReadProblem | None:
    """Block nesting, counted as YAML does: one level per deeper indentation and per `- ` indicator."""
    indents: list[int] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            match = _INDICATORS.match(line)
            assert match is not None
            indent = len(match.group(1))
            while indents and indents[-1] >= indent:
                indents.pop()
            indents.append(indent)
            levels = len(indents) + match.group(2).count("-") + match.group(2).count("?")
            if levels > MAX_NESTING:
                return _too_deep(text, offset + indent)
        offset += len(line)
    return None


def _too_deep(text: str, offset: int) -> ReadProblem:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return ReadProblem(
        f"nests deeper than {MAX_NESTING} levels, too deep to be a config (not parsed)", Span.point(line, column), text
    )


def alias_problem(root: yaml.Node, text: str) -> ReadProblem | None:
    """Refuse a document whose aliases expand to more than MAX_YAML_NODES nodes, or into themselves.

    Iterative post-order walk with one size per distinct node: the cost is the number of nodes
    written, whatever they expand to.
    """
    if "*" not in text and len(text) < MAX_YAML_NODES:
        return None  # no alias (an alias is written `*name`), and fewer characters than the nodes it takes: a tree
    # (The nodes themselves are the keys: yaml.Node compares and hashes by identity, and `id()` is an audited call.)
    sizes: dict[yaml.Node, int] = {}
    open_nodes: set[yaml.Node] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = node
        if finished:
            open_nodes.discard(key)
            total = 1 + sum(sizes[child] for child in _children(node))
            sizes[key] = min(total, MAX_YAML_NODES + 1)
            continue
        if key in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = 1
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if child in open_nodes:
                mark = child.start_mark
                return ReadProblem(
                    "an alias refers to the collection that contains it (the data would contain itself)",
                    Span.point(mark.line + 1, mark.column + 1),
                    text,
                )
            if child not in sizes:
                stack.append((child, False))
    if sizes[root] > MAX_YAML_NODES:
        return ReadProblem(
            f"alias expansion too large: its anchors and aliases (`&a`, `*a`) expand to more than "
            f"{MAX_YAML_NODES:,} values, which no config needs (not read)",
            Span.point(1, 1),
            text,
        )
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def guarded_root(loader: GuardedLoader, text: str) -> yaml.Node | ReadProblem | None:
    """The root node of `text` (the loader's own text), composed only once the nesting pre-scan passed
    and refused when its aliases expand too far; None for an empty document. YAML errors propagate."""
    refused = prescan(text)
    if refused is not None:
        return refused
    root = loader.get_single_node()
    if root is None:
        return None
    return alias_problem(root, text) or root


def load_plain(text: str) -> Any:
    """The data of a YAML or JSON text, without positions (a pin file, a framework's reference config,
    a Hydra value), through the same guards as a config. Raises ValueError when it cannot be read."""
    loader = GuardedLoader(text)
    try:
        root = guarded_root(loader, text)
        if isinstance(root, ReadProblem):
            raise ValueError(root.message)
        return None if root is None else loader.construct_document(root)
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("nests too deeply") from None
    finally:
        loader.dispose()
