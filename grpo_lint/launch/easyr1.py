"""EasyR1's launches: `python3 -m verl.trainer.main config=examples/config.yaml worker.rollout.n=5 ...`.

EasyR1 ships its own package named `verl` (a fork of verl 0.2), and a repository that trains with it holds that copy
(cloned, then `pip install -e .`). Its `verl/trainer/main.py` does not compose a Hydra tree: it builds the
config from dataclasses (`OmegaConf.structured(PPOConfig())`), merges the YAML file `config=` names into it, then
the command line's `key=value` words (`OmegaConf.from_cli()`), and builds `PPOConfig` from the result. So:

- a key that is not a field of its dataclass stops the run at start-up: OmegaConf raises `ConfigKeyError: Key 'x'
  not in 'DataConfig'` (GRPO002); a field typed `dict` takes any key below it;
- a value that its field's type cannot take stops it too: `ValidationError: Value 'x' of type 'str' could not be
  converted to Integer` (GRPO003);
- a `config=` file that is not there stops it with FileNotFoundError (GRPO001).

Those follow from OmegaConf's merge (checked with omegaconf 2.3). The keys are read from the copy's own dataclasses
(every `@dataclass` of its `config.py` files, nested by `field(default_factory=...)`), so a fork's keys are its own.
The trainer's and the workers' checks are judged only where the copy's code holds them, by their messages
(RayPPOTrainer.__init__ and the FSDP workers of EasyR1 0.3): a group of one (`GRPO and RLOO algorithm need
config.worker.rollout.n > 1`), the batch sizes that must divide one another, and the global batch that must cover
every GPU. What the copy does not show is not judged.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.groups import divisor_near, largest_divisor

if TYPE_CHECKING:
    from grpo_lint.launch.commands import Launch, Places
    from grpo_lint.sources.document import Entry

ENTRY = "verl.trainer.main"
OPEN = "open"  # a field typed as a mapping (or Any): any key below it
_MARKS = (b"OmegaConf.from_cli", b"OmegaConf.structured(")
_GROUP_ESTIMATORS = ("grpo", "rloo")


def easyr1_copy(modules: Any) -> str | None:
    """The repository file of EasyR1's `verl.trainer.main` (a copy that builds its config from dataclasses), or None."""
    if modules is None:
        return None
    relative = modules.module_file(ENTRY, 0, "")
    data = modules.bytes_of(relative) if relative is not None else None
    return relative if data is not None and all(mark in data for mark in _MARKS) else None


# --- the copy's config classes -------------------------------------------------------------------------------


class Field:
    __slots__ = ("default", "kind", "node")

    def __init__(self, kind: str, default: Any, node: str | None = None) -> None:
        self.kind = kind  # "int", "float", "bool", "str", OPEN, "class", "any"
        self.default = default
        self.node = node  # the class of a nested config


def config_classes(modules: Any, package: str) -> dict[str, dict[str, Field]]:
    """Every dataclass of the copy's `config.py` files: class name -> its fields (a name defined twice is left out:
    which one a field means is not known)."""
    found: dict[str, dict[str, Field]] = {}
    twice: set[str] = set()
    prefix = package.rstrip("/") + "/"
    for relative in modules.files:
        if not relative.startswith(prefix) or not relative.endswith("config.py"):
            continue
        code = modules.code(relative)
        if code is None:
            continue
        try:
            tree = ast.parse(code.text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(_dataclass(d) for d in node.decorator_list):
                if node.name in found:
                    twice.add(node.name)
                found[node.name] = _fields(node)
    for name in twice:
        del found[name]
    return found


def _dataclass(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Name) and target.id == "dataclass") or (
        isinstance(target, ast.Attribute) and target.attr == "dataclass"
    )


def _fields(node: ast.ClassDef) -> dict[str, Field]:
    fields: dict[str, Field] = {}
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        kind = _kind(statement.annotation)
        default: Any = None
        nested = None
        value = statement.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "field":
            for keyword in value.keywords:
                if keyword.arg == "default_factory" and isinstance(keyword.value, ast.Name):
                    if keyword.value.id in ("dict", "OrderedDict"):
                        kind = OPEN
                    elif keyword.value.id not in ("list", "tuple", "set"):
                        nested, kind = keyword.value.id, "class"
                elif keyword.arg == "default":
                    default = _literal(keyword.value)
        elif value is not None:
            default = _literal(value)
        fields[statement.target.id] = Field(kind, default, nested)
    return fields


def _kind(annotation: ast.expr) -> str:
    text = ast.unparse(annotation)
    inner = text.removeprefix("Optional[").removesuffix("]") if text.startswith("Optional[") else text
    if inner in ("int", "float", "bool", "str"):
        return inner
    if inner.startswith(("dict", "Dict", "Mapping")) or inner in ("Any", "typing.Any"):
        return OPEN
    return "any"  # a list, a tuple, a union: its values are not judged


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


# --- a launch ----------------------------------------------------------------------------------------------------


class Value:
    """A setting of the merged config: its value (None when not known before launch) and where it is written."""

    __slots__ = ("known", "span", "value")

    def __init__(self, value: Any, known: bool, span: Span | None) -> None:
        self.value, self.known, self.span = value, known, span


def launch_problems(launch: Launch, places: Places, read_config: Any) -> list[Diagnostic]:
    """What EasyR1's entry point stops on, or what makes its groups useless, for this launch. `read_config(path_word)
    -> dict[str, Entry] | None` reads the YAML file `config=` names (None when it is not there or not shown: what the
    run merges is then not known, and nothing more is said)."""
    modules = places.modules
    main = easyr1_copy(modules)
    if main is None:
        return []
    package = main.rsplit("/", 2)[0] if main.count("/") >= 2 else "verl"
    classes = config_classes(modules, package)
    if "PPOConfig" not in classes:
        return []
    found: list[Diagnostic] = []
    settings: dict[str, Value] = {}
    config_word = None
    words = []
    for word in launch.args:
        key, equals, value = word.text.partition("=")
        if not equals:
            continue
        if key == "config":
            config_word = word
            continue
        words.append((word, key, value))
    if config_word is not None:
        entries = read_config(config_word)
        if entries is None:
            return found
        _walk_file(entries, classes, "PPOConfig", "", settings, found, package)
    for word, key, value in words:
        # (`+key=value` is Hydra's: OmegaConf takes `+key` as the key, which no dataclass has)
        _, unknown = _resolve(key, classes)
        if unknown is not None:
            span = Span(word.span.line, word.span.column, word.span.line, word.span.column + len(key))
            found.append(_unknown_key(*unknown, span, package))
            continue
        settings[key] = Value(_cli_value(value) if word.known else None, word.known, word.span)
    for key, item in settings.items():
        problem = _check_type(key, item, classes, package)
        if problem is not None:
            found.append(problem)
    if not any(d.severity is Severity.ERROR for d in found):
        found.extend(_trainer_checks(settings, classes, modules, package))
    # a finding on a line of the config file is that file's
    return [d._replace(path=d.span.path) if d.span is not None and d.span.path else d for d in found]


def _walk_file(
    entries: dict[str, Entry],
    classes: dict[str, dict[str, Field]],
    node: str,
    prefix: str,
    settings: dict[str, Value],
    found: list[Diagnostic],
    package: str,
) -> None:
    fields = classes.get(node)
    if fields is None:
        return
    for name, entry in entries.items():
        path = prefix + name
        field = fields.get(name)
        if field is None:
            found.append(_unknown_key(path, node, fields, entry.key_span, package))
            continue
        if field.kind == "class" and field.node is not None:
            if entry.children:
                _walk_file(entry.children, classes, field.node, path + ".", settings, found, package)
            continue
        settings[path] = Value(entry.value, True, entry.value_span)


def _resolve(
    key: str, classes: dict[str, dict[str, Field]]
) -> tuple[Field | None, tuple[str, str, dict[str, Field]] | None]:
    """The field a dotted key names: (the field, None); (None, (the key up to the part no class has, that class, its
    fields)) when it names none; (None, None) when a class on the way is not known, or the key goes below a value or
    a mapping that takes any key."""
    node = "PPOConfig"
    parts = key.split(".")
    field = None
    for index, part in enumerate(parts):
        fields = classes.get(node)
        if fields is None or (field is not None and field.kind != "class"):
            return None, None
        field = fields.get(part)
        if field is None:
            return None, (".".join(parts[: index + 1]), node, fields)
        node = field.node or ""
    return field, None


def _unknown_key(path: str, node: str, fields: dict[str, Field], span: Span, package: str) -> Diagnostic:
    from grpo_lint.frameworks.fields import closest

    parent, _, name = path.rpartition(".")
    near = closest(name, list(fields), cutoff=0.75)
    near = f"{parent}.{near}" if near and parent else near
    hint = f" Did you mean `{near}`?" if near else ""
    return Diagnostic(
        "GRPO002",
        Severity.ERROR,
        f"`{path}` is not a field of `{node}`, a config class of EasyR1's (the copy in {package}/): "
        f"OmegaConf's merge stops at start-up with \"ConfigKeyError: Key '{name}' not in '{node}'\".{hint}",
        "",
        span,
        key=path,
        fix=f"use `{near}`"
        if near
        else f"delete `{path}` (the fields of `{node}` are in {package}/'s config.py files)",
    )


_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off", "y", "n", "1", "0"})


def _check_type(key: str, item: Value, classes: dict[str, dict[str, Field]], package: str) -> Diagnostic | None:
    field, _ = _resolve(key, classes)
    if field is None or not item.known or item.value is None or item.span is None:
        return None
    value, kind = item.value, field.kind
    if kind == "int":
        fits = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and value.strip().lstrip("+-").isdigit()
        )
        fits = fits or (isinstance(value, float) and value.is_integer())
        name = "Integer"
    elif kind == "float":
        fits = isinstance(value, (int, float)) and not isinstance(value, bool)
        if isinstance(value, str):
            try:
                float(value)
                fits = True
            except ValueError:
                fits = False
        name = "Float"
    elif kind == "bool":
        fits = isinstance(value, bool) or (isinstance(value, str) and value.strip().lower() in _BOOLEANS)
        fits = fits or (isinstance(value, int) and value in (0, 1))
        name = "Boolean"
    else:
        return None
    if fits:
        return None
    wanted = {"int": "an integer", "float": "a number", "bool": "true or false"}[kind]
    default = f" (its default is {field.default!r})" if field.default is not None else ""
    return Diagnostic(
        "GRPO003",
        Severity.ERROR,
        f"`{key}: {value!r}` is not {wanted}, which its field of EasyR1's config classes (the copy in {package}/) "
        f"must be: OmegaConf stops at start-up with \"ValidationError: Value '{value}' ... could not be converted to "
        f'{name}".',
        "",
        item.span,
        key=key,
        fix=f"give `{key}` {wanted}{default}",
    )


def _cli_value(text: str) -> Any:
    """A `key=value` word's value as OmegaConf reads it from the command line (YAML's scalars)."""
    import yaml

    try:
        return yaml.safe_load(text) if text else None
    except yaml.YAMLError:
        return text


# --- the trainer's own checks, where the copy holds them ----------------------------------------------------------

_CHECKS = {
    "group": b"GRPO and RLOO algorithm need",
    "actor_global": b"Rollout batch size must be divisible by actor global batch size",
    "experience": b"must be divisible by actor micro batch size for experience",
    "per_device": b"global batch size * ulysses size must be larger than num gpus",
    "update": b"global batch size per device must be divisible by the micro batch size",
}


def _trainer_checks(
    settings: dict[str, Value], classes: dict[str, dict[str, Field]], modules: Any, package: str
) -> list[Diagnostic]:
    texts = b"".join(
        data
        for name in (f"{package}/trainer/ray_trainer.py", f"{package}/workers/fsdp_workers.py")
        if (data := modules.bytes_of(name)) is not None
    )
    shows = {name for name, mark in _CHECKS.items() if mark in texts}

    def get(key: str) -> tuple[Any, Span | None, bool]:
        item = settings.get(key)
        if item is not None:
            return item.value, item.span, item.known
        field, _ = _resolve(key, classes)
        return (field.default if field is not None else None), None, field is not None

    found: list[Diagnostic] = []
    estimator, estimator_span, _ = get("algorithm.adv_estimator")
    n, n_span, n_known = get("worker.rollout.n")
    temperature, temperature_span, _ = get("worker.rollout.temperature")
    where = f"EasyR1's RayPPOTrainer (the copy in {package}/)"
    if n_known and n == 1 and estimator in _GROUP_ESTIMATORS:
        stops = "group" in shows
        found.append(
            Diagnostic(
                "GRPO101",
                Severity.ERROR if stops else Severity.WARNING,
                f"worker.rollout.n 1 with algorithm.adv_estimator {estimator}: a group needs at least 2 responses of "
                "the same prompt, and with one every advantage is 0, so nothing is learned. "
                + (
                    f'{where} stops at start-up with "GRPO and RLOO algorithm need `config.worker.rollout.n > 1`."'
                    if stops
                    else "The copy's trainer does not check it: the run goes on and learns nothing."
                ),
                "",
                n_span or estimator_span or Span.point(1, 1),
                key="worker.rollout.n",
                fix="worker.rollout.n=5 (or any count of 2 or more)",
            )
        )
    greedy = isinstance(temperature, int | float) and not isinstance(temperature, bool) and temperature == 0
    if greedy and isinstance(n, int) and n > 1 and temperature_span is not None:
        found.append(
            Diagnostic(
                "GRPO201",
                Severity.ERROR,
                f"worker.rollout.temperature 0 samples greedily: the {n} responses of each prompt are the same, "
                "so every advantage in the group is 0 and nothing is learned (EasyR1's vLLM rollout takes the "
                "temperature as it is).",
                "",
                temperature_span,
                key="worker.rollout.temperature",
                fix="worker.rollout.temperature=1.0",
            )
        )
    top_k, top_k_span, _ = get("worker.rollout.top_k")
    if top_k == 1 and isinstance(n, int) and n > 1 and top_k_span is not None:
        found.append(
            Diagnostic(
                "GRPO202",
                Severity.ERROR,
                f"worker.rollout.top_k 1 keeps only the most likely token: the {n} responses of each prompt are the "
                "same, so every advantage in the group is 0 and nothing is learned.",
                "",
                top_k_span,
                key="worker.rollout.top_k",
                fix="worker.rollout.top_k=-1 (no top-k cut)",
            )
        )
    found.extend(_batch_checks(get, shows, where))
    return found


def _batch_checks(get: Any, shows: set[str], where: str) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    values = {
        key: get(key)
        for key in (
            "data.rollout_batch_size",
            "worker.rollout.n",
            "worker.actor.global_batch_size",
            "worker.actor.micro_batch_size_per_device_for_experience",
            "worker.actor.micro_batch_size_per_device_for_update",
            "worker.actor.ulysses_size",
            "trainer.n_gpus_per_node",
            "trainer.nnodes",
        )
    }
    if not all(known and isinstance(value, int) and not isinstance(value, bool) for value, _, known in values.values()):
        return found  # (a value not known before launch, or not a count: not judged)
    rollout, n, actor, experience, update, ulysses, per_node, nodes = (v for v, _, _ in values.values())
    if min(rollout, n, actor, experience, update, ulysses, per_node, nodes) < 1:
        return found

    def at(*keys: str) -> Span:
        return next((values[k][1] for k in keys if values[k][1] is not None), Span.point(1, 1))

    def stop(code: str, message: str, who: str, quote: str, span: Span, key: str, fix: str) -> Diagnostic:
        return Diagnostic(
            code, Severity.ERROR, f'{message} {who} stops at start-up with "{quote}"', "", span, key=key, fix=fix
        )

    workers = "EasyR1's FSDP workers"
    if "actor_global" in shows and rollout % actor:
        found.append(
            stop(
                "GRPO109",
                f"data.rollout_batch_size {rollout} is not a multiple of worker.actor.global_batch_size {actor}.",
                where,
                "Rollout batch size must be divisible by actor global batch size.",
                at("worker.actor.global_batch_size", "data.rollout_batch_size"),
                "worker.actor.global_batch_size",
                f"worker.actor.global_batch_size={largest_divisor(rollout, actor)} (a divisor of "
                f"data.rollout_batch_size {rollout})",
            )
        )
    responses = rollout * n
    if "experience" in shows and responses % experience:
        found.append(
            stop(
                "GRPO108",
                f"data.rollout_batch_size {rollout} x worker.rollout.n {n} = {responses} responses is not a multiple "
                f"of worker.actor.micro_batch_size_per_device_for_experience {experience}.",
                where,
                "Rollout batch size * rollout.n must be divisible by actor micro batch size for experience.",
                at("worker.actor.micro_batch_size_per_device_for_experience", "data.rollout_batch_size"),
                "worker.actor.micro_batch_size_per_device_for_experience",
                f"worker.actor.micro_batch_size_per_device_for_experience={divisor_near(responses, experience)} (a "
                f"divisor of the {responses} responses per step)",
            )
        )
    world = per_node * nodes
    groups = world // ulysses
    if groups < 1:
        return found
    factor = n if n > 1 else 1  # (the workers multiply the global batch by rollout.n when it is above 1)
    per_device = actor * factor // groups
    if "per_device" in shows and per_device == 0:
        found.append(
            stop(
                "GRPO110",
                f"worker.actor.global_batch_size {actor} x worker.rollout.n {n} = {actor * factor} responses per "
                f"update, over {world} GPUs (Ulysses size {ulysses}), is less than one per GPU.",
                workers,
                "actor global batch size * ulysses size must be larger than num gpus.",
                at("worker.actor.global_batch_size", "trainer.n_gpus_per_node"),
                "worker.actor.global_batch_size",
                f"worker.actor.global_batch_size={-(-groups // factor)} or more",
            )
        )
    elif "update" in shows and per_device % update:
        found.append(
            stop(
                "GRPO110",
                f"worker.actor.global_batch_size {actor} x worker.rollout.n {n} over {groups} GPU groups gives "
                f"{per_device} responses per GPU, which worker.actor.micro_batch_size_per_device_for_update {update} "
                "does not divide.",
                workers,
                "actor global batch size per device must be divisible by the micro batch size.",
                at("worker.actor.micro_batch_size_per_device_for_update", "worker.actor.global_batch_size"),
                "worker.actor.micro_batch_size_per_device_for_update",
                f"worker.actor.micro_batch_size_per_device_for_update={largest_divisor(per_device, update)} (a divisor "
                f"of the {per_device} responses per GPU)",
            )
        )
    return found
