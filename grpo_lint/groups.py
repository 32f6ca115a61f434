"""Group geometry: which batch must hold whole groups, by framework version, and what passes.

A front end picks the GroupRules of the target version (data) and fills a Geometry with the
user's numbers; `check` then says what the framework would reject, in neutral terms.
"""

from __future__ import annotations

from math import gcd, isqrt

from grpo_lint.records import Record


class GroupRules(Record):
    """How a framework version checks groups."""

    basis: str  # "none", "global" (W x B), "effective" (W x B x GA), "generation" (gbs)
    min_group: str  # "none": N=1 accepted; "misleading": rejected by the divisibility text; "explicit"
    both_set: str = "n/a"  # generation_batch_size with steps_per_generation: "rejected", "must_match"
    gbs_divisor: str = "global"  # "global" (B x W) or "per_device" (TRL 0.18.0-0.19.0 bug)
    eval: str = "none"  # "none", "num_generations", "num_generations_eval"
    checks_need_groups: bool = False  # ms-swift >= 4.4 skips divisibility when N == 1
    teacher_allows_one: bool = False  # ms-swift >= 4.4: N == 1 is fine with a teacher model
    where: str = "at start-up"  # when the framework checks: "at start-up" or "after the model loads"
    # ms-swift 3.12-3.x also runs the GRPOConfig check of the TRL it installs (0.22-0.24), which divides the
    # eval batch by num_generations whatever num_generations_eval says.
    eval_also_train_group: bool = False


class Geometry(Record):
    world_size: int
    per_device: int
    grad_accum: int
    num_generations: int
    steps_per_generation: int | None = None
    generation_batch_size: int | None = None
    eval_per_device: int = 1
    num_generations_eval: int | None = None
    eval_enabled: bool = False
    has_teacher: bool = False

    @property
    def global_batch(self) -> int:
        return self.world_size * self.per_device

    def steps(self) -> int:
        """Steps per generation round as the framework derives it."""
        if self.generation_batch_size is not None and self.steps_per_generation is None:
            return self.generation_batch_size // max(self.global_batch, 1)
        return self.steps_per_generation or self.grad_accum


class Failure(Record):
    code: str  # GRPO101, 102, 103, 104, 105
    rejected: bool  # False: the framework accepts it (a warning, not an error)
    batch: int = 0  # the batch that must hold whole groups
    group: int = 0


def group_batch(rules: GroupRules, g: Geometry) -> int:
    """The batch that must be a whole number of groups."""
    if rules.basis == "global":
        return g.global_batch
    if rules.basis == "effective":
        return g.global_batch * g.grad_accum
    if g.generation_batch_size is not None:
        return g.generation_batch_size
    return g.global_batch * g.steps()


def check(rules: GroupRules, g: Geometry) -> list[Failure]:
    failures: list[Failure] = []
    n = g.num_generations
    if n < 2 and not (rules.teacher_allows_one and g.has_teacher and n == 1):
        failures.append(Failure("GRPO101", rules.min_group != "none", group=n))
    if rules.basis == "generation":
        gbs, spg = g.generation_batch_size, g.steps_per_generation
        if gbs is not None and spg is not None:
            if rules.both_set == "rejected":
                failures.append(Failure("GRPO104", True))
            elif gbs != g.global_batch * spg:
                failures.append(Failure("GRPO104", True, batch=g.global_batch * spg))
        elif gbs is not None and g.global_batch and gbs % g.global_batch:
            per_device_only = rules.gbs_divisor == "per_device" and gbs % g.per_device == 0
            failures.append(Failure("GRPO105", not per_device_only, batch=gbs))
    skip = n < 2 or (rules.checks_need_groups and n <= 1)
    if rules.basis != "none" and not skip:
        batch = group_batch(rules, g)
        if batch % n:
            failures.append(Failure("GRPO102", True, batch=batch, group=n))
    if rules.eval != "none" and g.eval_enabled and not (rules.checks_need_groups and n <= 1):
        n_eval = n
        if rules.eval == "num_generations_eval" and g.num_generations_eval:
            n_eval = g.num_generations_eval
        eval_batch = g.world_size * g.eval_per_device
        if n_eval >= 1 and eval_batch % n_eval:
            failures.append(Failure("GRPO103", True, batch=eval_batch, group=n_eval))
        elif rules.eval_also_train_group and n_eval != n and n >= 1 and eval_batch % n:
            failures.append(Failure("GRPO103", True, batch=eval_batch, group=n))
    return failures


def valid_world_sizes(rules: GroupRules, g: Geometry, limit: int = 64) -> list[int]:
    """Process counts up to `limit` for which the framework accepts the geometry."""
    return [w for w in range(1, limit + 1) if not [f for f in check(rules, g._replace(world_size=w)) if f.rejected]]


def divisors_at_least_two(n: int, search: int = 100_000) -> list[int]:
    """Divisors of n from 2 up, found in O(sqrt n) (pairs d, n // d); for astronomically large n only
    the divisors up to `search` and their partners, so that no input can stall a run."""
    if n <= 0:
        return []
    found: set[int] = set()
    for d in range(1, min(isqrt(n), search) + 1):
        if n % d == 0:
            found.update((d, n // d))
    return sorted(d for d in found if d >= 2)


def divisor_near(total: int, target: int, larger: bool = False) -> int:
    """The divisor of `total` nearest to `target` (on a tie the smaller, or with `larger` the larger),
    searched as boundedly as divisors_at_least_two: whatever the numbers, no search stalls a run."""
    candidates = [1, *divisors_at_least_two(total)] if total >= 1 else [1]
    return min(candidates, key=lambda d: (abs(d - target), -d if larger else d))


def largest_divisor(total: int, at_most: int) -> int:
    """The largest divisor of `total` that is at most `at_most` (1 when there is none), bounded likewise."""
    return max((d for d in [1, *divisors_at_least_two(total)] if d <= at_most), default=1)


def nearest_multiple(step: int, target: int, low: int = 1) -> int:
    """The multiple of `step` (at least `low`) nearest to `target`, the smaller on a tie: arithmetic, no search."""
    below = max(target // step * step, step * -(-low // step))
    above = below + step
    return below if abs(below - target) <= abs(above - target) else above


def nearest(values: list[int], target: int, count: int) -> list[int]:
    return sorted(sorted(values, key=lambda v: (abs(v - target), v))[:count])


def lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b) if a and b else 0


def spell_list(values: list[int | str], conjunction: str = "or") -> str:
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"


def spell_counts(values: list[int], limit: int = 64) -> str:
    """Process counts up to `limit`: 'every multiple of 4 up to 64', '1-4 and 8', or 'none up to 64'."""
    if not values:
        return f"none up to {limit}"
    step = values[0]
    if step > 1 and len(values) >= 3 and values == list(range(step, limit + 1, step)):
        return f"every multiple of {step} up to {limit}"
    return spell_ranges(values)


def spell_ranges(values: list[int]) -> str:
    """1, 2, 3, 4, 8 -> '1-4 and 8'."""
    runs: list[str] = []
    start = prev = None
    for v in [*values, None]:
        if v is not None and prev is not None and v == prev + 1:
            prev = v
            continue
        if start is not None:
            runs.append(
                f"{start}-{prev}"
                if prev != start and prev - start > 1
                else (f"{start}, {prev}" if prev != start else str(start))
            )
        start = prev = v
    return spell_list(runs, "and")
