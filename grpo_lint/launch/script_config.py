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
from grpo_lint.sources.document import Document, Entry, stamp

if TYPE_CHECKING:
    from grpo_lint.sources.shell import Script, Word

Through = tuple[dict[str, Entry], dict[str, "Word"], dict[str, Entry]]


def _own_parser(launch: Launch, places: Places) -> tuple[Path, Any] | None:
    """The launched script of the repository, with its program, when the script parses its own flags (argparse, not
    a parser of argument classes)."""
    modules = places.modules
    found = resolve_file(launch.script, places) if launch.script is not None and modules is not None else None
    program = modules.program(found) if found is not None else None
    return (found, program) if found is not None and program is not None and program.parser is None else None


def owns_config_flag(launch: Launch, places: Places) -> bool:
    """Whether a launched script's own argparse has `--config`: the file it names is the script's to read (its
    GRPOConfig call takes what it needs from it), not TRL's `--config` of GRPOConfig fields."""
    own = _own_parser(launch, places)
    if own is None:
        return False
    code = places.modules.code(places.modules.relative(own[0]))
    return code is not None and "config" in code.flag_defaults and bool(code.configs)


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
    launch: Launch,
    places: Places,
    flags: dict[str, Entry],
    unresolved: dict[str, Word],
    result: Any,
    script: Script,
) -> Through | None:
    """A launched script that reads its own argparse flags and builds one `GRPOConfig(...)` from them
    (`beta=args.beta`): the run's config is that call. Each keyword takes the launch's flag of the attribute it
    reads, else the script's argparse default (`--beta` default 0.4, not GRPOConfig's), or the call's literal;
    a keyword that reads a config file the script loads (`tcfg["num_generations"]` of `yaml.safe_load(open(
    args.config))`) takes that file's value; a keyword computed otherwise has no known value, and no GRPOConfig
    default applies to it. The launch's other flags are the script's own. None when the script shows no such
    single call (a parser of argument classes, `GRPOConfig(**kwargs)`, a config built in another module)."""
    from grpo_lint.sources.python_code import NOT_LITERAL

    own = _own_parser(launch, places)
    if own is None:
        return None
    found, program = own
    through = _grpo_config_call(places, found)
    if through is None:
        return None
    call, code = through
    if not program.flags and not call.loaded:
        return None

    def read(chain: str) -> tuple[Entry | None, Word | None, Any]:
        base, _, attribute = chain.partition(".")
        parsed = base in code.parsed_names or (not code.parsed_names and attribute in code.flag_defaults)
        if not parsed or "." in attribute:  # (`args = get_args()`: a helper parses; its attributes are the flags)
            return None, None, _COMPUTED  # not what the parser returned (`config.batch` of a YAML the script loads)
        if attribute in flags:
            return flags[attribute], unresolved.get(attribute), None  # (`--seed $seed`: known only at launch)
        default = code.flag_defaults.get(attribute, NOT_LITERAL)
        return None, None, _COMPUTED if default is NOT_LITERAL else default

    def config_file(kind: str, source: str) -> str | None:
        """The path of a config file the script loads: the launch's flag (`--config configs/a.yaml`), else the
        flag's argparse default; or the path the script writes. None when not known before launch."""
        if kind == "path":
            return source
        if source in code.positionals:  # `python train.py configs/a.yaml` to `add_argument("config", nargs="?")`
            leading = _leading_words(launch.args)
            position = code.positionals.index(source)
            if position < len(leading):
                return None if leading[position].unknown else leading[position].text
        if source not in code.flag_defaults:
            return None  # (`cfg_path.read_text()` of no flag of the script's own)
        if source in flags:
            entry = flags[source]
            return entry.value if source not in unresolved and isinstance(entry.value, str) else None
        default = code.flag_defaults[source]
        return default if isinstance(default, str) else None

    loaded = _loaded_values(call, config_file, places, result, str(found), script, launch.command.line)
    for field, given in (call.loaded or {}).items():
        if given.override is None:
            continue
        entry, word, default = read(given.override)  # the flag wins when the launch gives it, or when it defaults
        if entry is not None:  # to something the script keeps (`default=1e-5` where the test is `is not None`)
            loaded[field] = (entry, word)
        elif default is _COMPUTED:
            loaded[field] = (None, None)
        elif not (default is None or (given.falsy and not default)):
            at = call.span._replace(path=str(found))
            loaded[field] = (Entry(field, default, at, at), None)
    return _assemble(call, str(found), read, loaded)


def _leading_words(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """The words before a launch's first flag: argparse's positional arguments, in order. (A positional after a
    flag may be that flag's value: not taken.)"""
    for index, word in enumerate(words):
        if word.text.startswith("-") and len(word.text) > 1:
            return words[:index]
    return words


def _loaded_values(
    call: Any,
    config_file: Callable[[str, str], str | None],
    places: Places,
    result: Any,
    located: str,
    script: Script,
    line: int,
) -> dict[str, tuple[Entry | None, Word | None]]:
    """Each keyword that reads a key of a config file the script loads: that key's entry in the file (its value
    and place), the `.get(key, default)` default where the file lacks the key, or None when not known."""
    from grpo_lint.launch.commands import find_file
    from grpo_lint.sources import yaml_reader
    from grpo_lint.sources.python_code import NOT_LITERAL
    from grpo_lint.sources.python_loads import NO_DEFAULT

    values: dict[str, tuple[Entry | None, Word | None]] = {}
    documents: dict[str, Document | None] = {}
    in_script: set[str] = set()  # files the script writes: their entries are at the script's own lines
    for field, read in (call.loaded or {}).items():
        values[field] = (None, None)
        named = config_file(read.kind, read.source)
        if named is None:
            continue
        if named not in documents:
            written = written_config(script, named, line)
            if written is not None:  # written by the launch script from a here-document before it runs
                documents[named] = written if isinstance(written, Document) else None
                if isinstance(written, Document):
                    in_script.add(named)
            else:
                path = find_file(named, places)
                parsed = yaml_reader.read(path, str(path)) if isinstance(path, Path) else None
                documents[named] = parsed if isinstance(parsed, Document) else None
                if isinstance(parsed, Document):
                    result.sources[str(path)] = parsed.text
        document = documents[named]
        if document is None:
            continue
        entries, entry = document.entries, None
        for key in read.keys:
            entry = entries.get(key)
            if entry is None:
                break
            entries = entry.children
        if entry is not None and not entry.children:
            values[field] = (entry if named in in_script else stamp(entry, document.path), None)
        elif entry is None and read.default not in (NO_DEFAULT, NOT_LITERAL) and not isinstance(read.default, dict):
            at = call.span._replace(path=located)
            values[field] = (Entry(field, read.default, at, at), None)  # `.get(key, default)`
        # (else not known: a section, a key the file lacks (the script stops there), or a default it computes)
    return values


def written_config(script: Script, config: str, line: int) -> Document | str | None:
    """The config file a script writes from a here-document before the command on `line` reads it, parsed, its
    positions those of the script's lines; "not known" when bash expands `$VAR` or `$(...)` in it, or it does not
    parse; None when the script writes no such file."""
    from grpo_lint.sources import yaml_reader

    written = script.written_before(config, line)
    if written is None:
        return None
    if written.expanded:
        return "not known"
    parsed = yaml_reader.read_text("\n" * (written.line - 1) + written.text, config)
    return parsed if isinstance(parsed, Document) else "not known"


_COMPUTED = object()  # a keyword whose value the script computes: not known, and no GRPOConfig default applies


def _assemble(
    call: Any,
    located: str,
    read: Callable[[str], tuple[Entry | None, Word | None, Any]],
    loaded: dict[str, tuple[Entry | None, Word | None]] | None = None,
) -> Through:
    """The run's config from the script's GRPOConfig(...) call: its literals; for each keyword that reads an attribute
    (`args.beta`, `cfg.grpo.beta`), what `read` finds for it (the launch's entry, with the word of a value known only
    at launch; else a value the script defaults to; else _COMPUTED); for each keyword that reads a config file the
    script loads, the entry `loaded` found; a keyword computed otherwise has no known value. (entries, words known
    only at launch, computed entries)."""
    entries = {field: stamp(entry, located) for field, entry in call.entries.items()}
    words: dict[str, Word] = {}
    computed: dict[str, Entry] = {}
    unknown = call.unknown_entries or {}
    loaded = loaded or {}
    for field, (value, word) in loaded.items():
        if value is not None:
            entries[field] = _named(value, field)
            if word is not None:
                words[field] = word
        else:  # a key of a file not known before launch, a section, or a key the file lacks
            at = unknown.get(field)
            place = call.span._replace(path=located)
            computed[field] = stamp(at, located) if at is not None else Entry(field, None, place, place)
    for field, chain in call.attributes.items():
        if field in loaded:
            continue
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
        if field not in call.attributes and field not in loaded:  # `beta=0.0 if args.x else 0.04`: computed
            computed[field] = stamp(at, located)
    return entries, words, computed


def _named(entry: Entry, field: str) -> Entry:
    """A value of a config file the script loads, as the keyword it feeds (`num_generations`), at its place in the
    file (`training.group_size: 4`)."""
    named = Entry(field, entry.value, entry.key_span, entry.value_span)
    named.item_spans = entry.item_spans
    return named
