"""Which rule modules a lint needs: run_all imports only the ones a plan's framework can use."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grpo_lint.checks import REGISTRY, all_rules, run_all
from grpo_lint.engine import lint_text
from grpo_lint.options import Options

_TRL = "num_generations: 4\nper_device_train_batch_size: 6\ntemperature: 0.0\nnum_processes: 2\n"
_SWIFT = "rlhf_type: grpo\nnum_generations: 4\nper_device_train_batch_size: 6\n"


def test_rules_of_the_readers_are_never_run_from_a_plan():
    """code.py and launch.py report from the Python and script readers, so run_all never imports them."""
    from grpo_lint.checks import code, launch

    rules = all_rules()
    theirs = [entry[0] for module in (code, launch) for entry in module._RULES]
    assert "GRPO301" in theirs and "GRPO501" in theirs
    assert all(rules[c].check is None for c in theirs)


@pytest.mark.parametrize("text", [_TRL, _SWIFT])
def test_the_batch_rules_of_verl_and_openrlhf_say_nothing_of_other_frameworks(text):
    from grpo_lint.checks import openrlhf_batches, verl_batches

    (plan,) = lint_text(text, "config.yaml", Options()).plans
    assert plan.framework in ("trl", "swift")
    for module in (verl_batches, openrlhf_batches):
        checks = [r.check for r in REGISTRY.values() if r.check is not None and r.check.__module__ == module.__name__]
        assert checks
        for check in checks:
            assert list(check(plan, Options())) == []
    assert [d.code for d in run_all(plan, Options())]  # the plan does get the rules that apply


def test_a_trl_lint_loads_no_rule_module_it_cannot_use(tmp_path):
    (tmp_path / "config.yaml").write_text(_TRL)
    code = (
        "import sys\n"
        "from grpo_lint.engine import lint_paths\n"
        "from grpo_lint.options import Options\n"
        "report = lint_paths(['config.yaml'], Options())\n"
        "assert any(d.code == 'GRPO201' for f in report.files for d in f.diagnostics)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('grpo_lint.checks.'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "grpo_lint.checks.sampling" in loaded
    assert not loaded & {f"grpo_lint.checks.{m}" for m in ("verl_batches", "openrlhf_batches", "code", "launch")}
