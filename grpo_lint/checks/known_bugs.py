"""GRPO304: the target version has a known duplicate-completion bug for this setup."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from grpo_lint.checks import report, rule
from grpo_lint.checks.consistency import vllm_mode
from grpo_lint.checks.messages import fw
from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan


@rule(
    "GRPO304",
    "known-duplicate-bug",
    Severity.WARNING,
    "Known duplicate-completion bug in the target version.",
)
def known_duplicate_bug(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if plan.framework != "swift":
        return
    v, mode = plan.target.version, vllm_mode(plan)
    tp = plan.get("vllm_tensor_parallel_size")
    if Version("3.5.0") <= v < Version("3.5.3") and mode == "colocate" and isinstance(tp.value, int) and tp.value > 1:
        yield report(
            plan,
            "GRPO304",
            f"{fw(plan)} gives every request of a tensor-parallel group the same sampling seed in "
            f"colocate mode with {tp.key or 'vllm_tensor_parallel_size'} {tp.value}: copies of a "
            "prompt inside a group come out identical (zero reward std). Fixed in ms-swift 3.5.3 "
            "(PR #4712).",
            tp,
            fix="upgrade to ms-swift >= 3.5.3, or use vllm_tensor_parallel_size: 1",
        )
    hosts = plan.get("vllm_server_host")
    urls = plan.get("vllm_server_base_url")
    servers = hosts if hosts.explicit else urls
    count = len(servers.value) if isinstance(servers.value, list) else (1 if servers.value else 0)
    if Version("3.7.0") <= v < Version("3.12.3") and mode == "server" and count > 1:
        yield report(
            plan,
            "GRPO304",
            f"{fw(plan)} starts every rollout server with the same vLLM seed, so copies of a prompt "
            f"sent to the {count} servers (or to data-parallel workers) sample identically. Fixed in "
            "ms-swift 3.12.3 and 4.0.0 (PR #7858/#7859).",
            servers,
            fix="upgrade to ms-swift >= 3.12.3 (or 4.0.0)",
        )
