"""Shared wording: how a message names a framework version and quotes what the framework says."""

from __future__ import annotations

from grpo_lint.plan import RunPlan, Setting


def fw(plan: RunPlan) -> str:
    """`TRL 1.16.0` or `ms-swift 4.6.0`."""
    return str(plan.target)


def config_of(plan: RunPlan) -> str:
    """Whose config decides a key: `verl 0.4.0's config`, or the repository's own copy's when the copy
    stands for no known release (its keys, not a release's, are what is checked then)."""
    hydra = getattr(plan.document, "hydra", None) if plan.document is not None else None
    if hydra is not None and getattr(hydra, "composed_from", ""):
        return hydra.composed_from
    target = plan.target
    fork = target.fork
    if fork is not None and fork.mapped and target.unknown:
        return f"the config of the {target.framework_name} copy in {fork.package}/"
    return f"{target}'s config"


def name_of(plan: RunPlan, name: str) -> str:
    """The key as the user wrote it, else the canonical name."""
    setting = plan.get(name)
    return setting.key or name


def assignment(plan: RunPlan, key: str, value: object) -> str:
    """`key value` as the user writes it here: `k: v` in YAML/JSON, `--k v` in a script, `k=v` in Python."""
    if plan.framework == "verl":
        path = key.removesuffix(" (default)")
        if plan.document.format == "hydra":
            return f"{path}={shown_override(value)}"
        parent, _, leaf = path.rpartition(".")
        return f"{leaf}: {value} (under {parent})" if parent else f"{leaf}: {value}"
    if plan.framework == "openrlhf":
        return f"{openrlhf_flag(plan, key.removesuffix(' (default)'))} {value}"
    if "." in key:  # inside a mapping such as generation_kwargs
        return f"{key.rsplit('.', 1)[-1]}: {value}"
    if plan.document.format == "cli":
        return f"{key} {value}"
    if plan.document.format == "python":
        return f"{key}={value}"
    return f"{key}: {value}"


def shown(value: object) -> str:
    from grpo_lint.sources.numbers import TooLarge

    if isinstance(value, TooLarge):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def written_at(plan: RunPlan, *names: str) -> Setting | None:
    """The first of the named settings that the user wrote (it has a position), if any."""
    return first_located(*(plan.get(name) for name in names))


def first_located(*settings: Setting) -> Setting | None:
    for setting in settings:
        if setting.span is not None:
            return setting
    return None


def spell(values: list[int]) -> str:
    from grpo_lint.groups import spell_list

    return spell_list(values)


def openrlhf_flag(plan: RunPlan, name: str) -> str:
    """`--rollout.n_samples_per_prompt` or `--n_samples_per_prompt`, as the target version spells it."""
    from grpo_lint.frameworks.openrlhf.frontend import NAMES

    if name.startswith("-"):
        return name
    canonical = {"num_generations": "n"}.get(name, name)
    if canonical in NAMES:
        return f"--{NAMES[canonical][1 if plan.native.dotted else 0]}"
    return f"--{name}"


def shown_override(value: object) -> str:
    """A value as written in a Hydra override."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)
