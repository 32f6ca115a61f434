"""The `GRPOConfig(...)` a launched script builds from what the launch gives it: the run's config is that call.

A script's own argparse (`beta=args.beta`: the launch's flag, else the script's default) and a Hydra app
(`num_generations=cfg.grpo.group`: the override, else the composed tree's value) are read here; grpo_lint.launch.runs
lays the result over the launch's words.
"""

from __future__ import annotations

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
    schema, located = context.schema, str(found)
    for path, written in overrides.entries.items():
        prefix = overrides.prefixes.get(path, "")
        if prefix == "" and path not in schema and written.key.split("@")[0] not in context.group_keys:
            result.problems.append(
                Diagnostic(
                    "GRPO002",
                    Severity.ERROR,
                    f"`{path}` is not a key of {context.composed_from}, whose composed config Hydra keeps in struct "
                    f"mode: Hydra stops before training (\"Could not override '{path}'\").",
                    "",
                    written.key_span,
                    key=path,
                    fix=f"`+{path}={shown_override(written.value)}` to add it, or name a key the config has",
                )
            )
    entries: dict[str, Entry] = {}
    words: dict[str, Word] = {}
    computed: dict[str, Entry] = {}
    unknown = call.unknown_entries or {}
    for field, entry_ in call.entries.items():
        entries[field] = stamp(entry_, located)
    for field, chain in call.attributes.items():
        path = chain.partition(".")[2]  # `cfg.training.grpo.group` -> the config's `training.grpo.group`
        at = unknown.get(field)
        written = stamp(at, located) if at is not None else Entry(field, None, call.span, call.span)
        override = overrides.entries.get(path)
        if override is not None and overrides.prefixes.get(path, "") != "~":
            entries[field] = override
            if path in overrides.unresolved:
                words[field] = overrides.unresolved[path]
        elif path in schema and not (isinstance(schema[path], str) and "${" in schema[path]):
            entries[field] = Entry(field, schema[path], written.key_span, written.value_span)
        else:
            computed[field] = written
    for field, at in unknown.items():
        if field not in call.attributes:
            computed[field] = stamp(at, located)
    return entries, words, computed


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
    (call, code), located = through, str(found)
    entries: dict[str, Entry] = {}
    words: dict[str, Word] = {}
    computed: dict[str, Entry] = {}
    for field, entry in call.entries.items():  # literals written in the call
        entries[field] = stamp(entry, located)
    unknown = call.unknown_entries or {}
    for field, chain in call.attributes.items():
        base, _, attribute = chain.partition(".")
        parsed = base in code.parsed_names or (not code.parsed_names and attribute in code.flag_defaults)
        if not parsed or "." in attribute:  # (`args = get_args()`: a helper parses; its attributes are the flags)
            attribute = ""  # not what the parser returned (`config.batch` of a YAML the script loads): computed
        default = code.flag_defaults.get(attribute, NOT_LITERAL)
        at = unknown.get(field)
        written = stamp(at, located) if at is not None else Entry(field, None, call.span, call.span)
        if attribute in flags:
            entries[field] = flags[attribute]
            if attribute in unresolved:  # `--seed $seed`: a value not known before launch
                words[field] = unresolved[attribute]
        elif default is not NOT_LITERAL and attribute in code.flag_defaults:
            entries[field] = Entry(field, default, written.key_span, written.value_span)
        else:
            computed[field] = written
    for field, at in unknown.items():
        if field not in call.attributes:  # `beta=0.0 if args.x else 0.04`: computed by the script
            computed[field] = stamp(at, located)
    return entries, words, computed
