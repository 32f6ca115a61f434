"""Shared wording: how a message names a framework version and quotes what the framework says."""

from __future__ import annotations

from grpo_lint.plan import RunPlan, Setting


def fw(plan: RunPlan) -> str:
    """`TRL 1.16.0` or `ms-swift 4.6.0`."""
    return str(plan.target)


def name_of(plan: RunPlan, name: str) -> str:
    """The key as the user wrote it, else the canonical name."""
    setting = plan.get(name)
    return setting.key or name


def shown(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def first_located(*settings: Setting) -> Setting | None:
    for setting in settings:
        if setting.span is not None:
            return setting
    return None


def spell(values: list[int]) -> str:
    from grpo_lint.groups import spell_list

    return spell_list(values)
