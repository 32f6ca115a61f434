"""The `GRPOConfig(...)` a launched script builds from what the launch gives it: the run's config is that call.

A script's own argparse (`beta=args.beta`: the launch's flag, else the script's default) and a Hydra app
(`num_generations=cfg.grpo.group`: the override, else the composed tree's value) are read here; grpo_lint.launch.runs
lays the result over the launch's words.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.launch.commands import Launch, Places, resolve_file
from grpo_lint.sources.document import Entry, stamp

if TYPE_CHECKING:
    from grpo_lint.sources.shell import Word

Through = tuple[dict[str, Entry], dict[str, "Word"], dict[str, Entry]]


def _grpo_config_call(places: Places, found: Path) -> tuple[Any, Any] | None:
    """The script's one `GRPOConfig(...)` call that names its keywords (no `**kwargs`), with the script's code."""
    modules = places.modules
    relative = modules.relative(found) if modules is not None else None
    code = modules.code(relative) if relative is not None else None
    if code is None:
        return None
    calls = [call for call in code.configs if call.callee.rpartition(".")[2] == "GRPOConfig"]
    if len(calls) != 1 or calls[0].spread or calls[0].attributes is None:
        return None
    return calls[0], code


def through_hydra(launch: Launch, places: Places, result: Any) -> Through | None:
    """A launched script that is a Hydra application (`@hydra.main`) and builds one `GRPOConfig(...)` from the
    composed config (`num_generations=cfg.training.grpo.num_generations`): the run's config is that call, each
    keyword taking the override of its key, else the composed tree's value. An override of a key the tree does
    not have stops Hydra (its config is in struct mode) and is reported. None when the script is not such an app
    or its tree cannot be composed."""
    from grpo_lint.checks.messages import shown_override
    from grpo_lint.frameworks.fields import closest
    from grpo_lint.launch.compose_entry import compose_entry
    from grpo_lint.launch.entries import hydra_entry
    from grpo_lint.sources.hydra_overrides import HydraContext, parse_overrides

    modules = places.modules
    found = resolve_file(launch.script, places) if launch.script is not None and modules is not None else None
    entry = hydra_entry(modules, found) if found is not None else None
    through = _grpo_config_call(places, found) if entry is not None and not entry.verl else None
    if through is None:
        return None
    call, _code = through
    overrides = parse_overrides(launch.args)
    context = compose_entry(
        launch._replace(hydra=entry), overrides, places, HydraContext({}, None, frozenset(), None, None), result, None
    )
    if context.schema is None:
        return None
    schema = context.schema
    for path, written in overrides.entries.items():
        prefix = overrides.prefixes.get(path, "")
        if prefix == "" and path not in schema and written.key.split("@")[0] not in context.group_keys:
            near = closest(path, list(schema))
            value = shown_override(written.value)
            result.problems.append(
                Diagnostic(
                    "GRPO002",
                    Severity.ERROR,
                    f"`{path}` is not a key of {context.composed_from}"
                    + (f"; did you mean `{near}`?" if near else ".")
                    + f' Hydra keeps the composed config in struct mode and stops before training: "Could not '
                    f"override '{path}'\".",
                    "",
                    written.key_span,
                    key=path,
                    fix=(f"`{near}={value}`, or " if near else "") + f"`+{path}={value}` to add a key of your own",
                )
            )

    def read(chain: str) -> tuple[Entry | None, Word | None, Any]:
        path = chain.partition(".")[2]  # `cfg.training.grpo.group` -> the config's `training.grpo.group`
        if path in overrides.entries:
            if overrides.prefixes.get(path, "") == "~":
                return None, None, _COMPUTED  # deleted: the script reads nothing there
            return overrides.entries[path], overrides.unresolved.get(path), None
        value = schema.get(path, _COMPUTED)
        return None, None, _COMPUTED if isinstance(value, str) and "${" in value else value

    return _assemble(call, str(found), read)


def through_argparse(
    launch: Launch, places: Places, flags: dict[str, Entry], unresolved: dict[str, Word]
) -> Through | None:
    """A launched script that reads its own argparse flags and builds one `GRPOConfig(...)` from them
    (`beta=args.beta`): the run's config is that call. Each keyword takes the launch's flag of the attribute it
    reads, else the script's argparse default (`--beta` default 0.4, not GRPOConfig's), or the call's literal;
    a keyword computed otherwise has no known value, and no GRPOConfig default applies to it. The launch's other
    flags are the script's own. None when the script shows no such single call (a parser of argument classes,
    `GRPOConfig(**kwargs)`, a config built in another module)."""
    from grpo_lint.sources.python_code import NOT_LITERAL

    modules = places.modules
    found = resolve_file(launch.script, places) if launch.script is not None and modules is not None else None
    program = modules.program(found) if found is not None else None
    if program is None or program.parser is not None or not program.flags:
        return None
    through = _grpo_config_call(places, found)
    if through is None:
        return None
    call, code = through

    def read(chain: str) -> tuple[Entry | None, Word | None, Any]:
        base, _, attribute = chain.partition(".")
        parsed = base in code.parsed_names or (not code.parsed_names and attribute in code.flag_defaults)
        if not parsed or "." in attribute:  # (`args = get_args()`: a helper parses; its attributes are the flags)
            return None, None, _COMPUTED  # not what the parser returned (`config.batch` of a YAML the script loads)
        if attribute in flags:
            return flags[attribute], unresolved.get(attribute), None  # (`--seed $seed`: known only at launch)
        default = code.flag_defaults.get(attribute, NOT_LITERAL)
        return None, None, _COMPUTED if default is NOT_LITERAL else default

    return _assemble(call, str(found), read)


_COMPUTED = object()  # a keyword whose value the script computes: not known, and no GRPOConfig default applies


def _assemble(call: Any, located: str, read: Callable[[str], tuple[Entry | None, Word | None, Any]]) -> Through:
    """The run's config from the script's GRPOConfig(...) call: its literals; for each keyword that reads an attribute
    (`args.beta`, `cfg.grpo.beta`), what `read` finds for it (the launch's entry, with the word of a value known only
    at launch; else a value the script defaults to; else _COMPUTED); a keyword computed otherwise has no known
    value. (entries, words known only at launch, computed entries)."""
    entries = {field: stamp(entry, located) for field, entry in call.entries.items()}
    words: dict[str, Word] = {}
    computed: dict[str, Entry] = {}
    unknown = call.unknown_entries or {}
    for field, chain in call.attributes.items():
        at = unknown.get(field)
        place = call.span._replace(path=located)
        written = stamp(at, located) if at is not None else Entry(field, None, place, place)
        given, word, default = read(chain)
        if given is not None:
            entries[field] = given
            if word is not None:
                words[field] = word
        elif default is not _COMPUTED:
            entries[field] = Entry(field, default, written.key_span, written.value_span)
        else:
            computed[field] = written
    for field, at in unknown.items():
        if field not in call.attributes:  # `beta=0.0 if args.x else 0.04`: computed by the script
            computed[field] = stamp(at, located)
    return entries, words, computed
