"""[tool.grpo-lint] / .grpo-lint.toml: discovery, every setting, precedence, errors with positions."""

from __future__ import annotations

import json

import pytest

from grpo_lint.diagnostics import Severity
from grpo_lint.project_config import ConfigError, find, load

from .conftest import run_cli

# Valid everywhere except 5 processes; low temperature (GRPO205) and a script-only key (GRPO002).
CONFIG = """\
num_processes: 4
per_device_train_batch_size: 8
num_generations: 8
temperature: 0.2
my_custom_flag: 3
"""


def project(tmp_path, settings: str, name: str = "pyproject.toml", config: str = CONFIG):
    (tmp_path / name).write_text(settings)
    (tmp_path / "configs").mkdir(exist_ok=True)
    (tmp_path / "configs" / "run.yaml").write_text(config)
    return tmp_path


def codes_of(result) -> list[str]:
    return sorted(d["code"] for d in json.loads(result.stdout)["diagnostics"])


def test_no_settings_file_reports_the_defaults(tmp_path):
    project(tmp_path, "[project]\nname = 'x'\n")
    result = run_cli("configs/run.yaml", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    assert codes_of(result) == ["GRPO002", "GRPO205"]
    # Found by a walk, no launch names it: which script reads it is not shown, so no key is called unknown.
    walked = run_cli("configs", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    assert codes_of(walked) == ["GRPO205"]


def test_pyproject_settings_apply_and_flags_override_them(tmp_path):
    project(
        tmp_path,
        """\
[tool.grpo-lint]
target = "trl==1.16.0"
world-size = 5
extra-keys = ["my_custom_flag"]
ignore = ["GRPO205"]
""",
    )
    result = run_cli("configs", "--format", "json", cwd=tmp_path)
    assert codes_of(result) == []
    flagged = run_cli("configs", "--format", "json", "--ignore", "GRPO0", cwd=tmp_path)
    assert codes_of(flagged) == ["GRPO205"]  # --ignore replaces the file's ignore list


def test_world_size_and_target_from_the_file(tmp_path):
    project(tmp_path, '[tool.grpo-lint]\ntarget = ["trl==0.16.0"]\nworld-size = 3\nextra-keys = ["my_custom_flag"]\n')
    config = "per_device_train_batch_size: 2\nnum_generations: 4\nmy_custom_flag: 1\n"
    (tmp_path / "configs" / "run.yaml").write_text(config)
    result = run_cli("configs", "--format", "json", cwd=tmp_path)
    # TRL 0.16 checks processes x batch = 3 x 2 = 6 against 4.
    assert codes_of(result) == ["GRPO102"]
    assert codes_of(run_cli("configs", "--format", "json", "--world-size", "2", cwd=tmp_path)) == []


def test_severity_overrides_and_fail_on(tmp_path):
    project(tmp_path, '[tool.grpo-lint]\nextra-keys = ["my_custom_flag"]\nfail-on = "warning"\n')
    assert run_cli("configs", "--target", "trl==1.16.0", cwd=tmp_path).returncode == 1
    assert run_cli("configs", "--target", "trl==1.16.0", "--fail-on", "error", cwd=tmp_path).returncode == 0
    project(
        tmp_path, '[tool.grpo-lint]\nextra-keys = ["my_custom_flag"]\n[tool.grpo-lint.severity]\nGRPO205 = "error"\n'
    )
    result = run_cli("configs", "--target", "trl==1.16.0", "--format", "json", cwd=tmp_path)
    assert result.returncode == 1
    assert [d["severity"] for d in json.loads(result.stdout)["diagnostics"]] == ["error"]


def test_thresholds(tmp_path):
    project(tmp_path, '[tool.grpo-lint]\nextra-keys = ["my_custom_flag"]\nthresholds = {min-temperature = 0.1}\n')
    assert codes_of(run_cli("configs", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)) == []


def test_exclude_and_per_file_ignores(tmp_path):
    project(
        tmp_path,
        """\
[tool.grpo-lint]
exclude = ["legacy"]
[tool.grpo-lint.per-file-ignores]
"configs/*.yaml" = ["GRPO002"]
""",
    )
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.yaml").write_text("num_generations: 1\n")
    result = run_cli(".", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["summary"]["files"]] == ["./configs/run.yaml"]
    assert codes_of(result) == ["GRPO205"]
    # A named file is linted unless --force-exclude says otherwise.
    named = run_cli("legacy/old.yaml", "--format", "json", cwd=tmp_path)
    assert "GRPO101" in codes_of(named)
    forced = run_cli("legacy/old.yaml", "--force-exclude", "--format", "json", cwd=tmp_path)
    assert json.loads(forced.stdout)["summary"]["files"] == []


def test_own_file_beats_pyproject_and_isolated_ignores_both(tmp_path):
    project(tmp_path, '[tool.grpo-lint]\nignore = ["GRPO205"]\n')
    (tmp_path / ".grpo-lint.toml").write_text('ignore = ["GRPO002"]\n')
    named = "configs/run.yaml"
    assert codes_of(run_cli(named, "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)) == ["GRPO205"]
    isolated = run_cli(named, "--isolated", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    assert codes_of(isolated) == ["GRPO002", "GRPO205"]


def test_explicit_config_path_and_search_upwards(tmp_path):
    project(tmp_path, '[tool.grpo-lint]\nignore = ["GRPO2"]\n')
    nested = tmp_path / "configs"
    # Found from a subdirectory.
    assert codes_of(run_cli("run.yaml", "--format", "json", "--target", "trl==1.16.0", cwd=nested)) == ["GRPO002"]
    other = tmp_path / "other.toml"
    other.write_text('ignore = ["GRPO0"]\n')
    result = run_cli("run.yaml", "--config", str(other), "--format", "json", "--target", "trl==1.16.0", cwd=nested)
    assert codes_of(result) == ["GRPO205"]
    missing = run_cli("run.yaml", "--config", "nope.toml", cwd=nested)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_pyproject_without_the_section_is_passed_over(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.grpo-lint]\nignore = ["GRPO205"]\n')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert find(inner) == tmp_path / "pyproject.toml"


@pytest.mark.parametrize(
    ("settings", "line", "message"),
    [
        ('[tool.grpo-lint]\nselct = ["GRPO1"]\n', 2, "unknown setting 'selct'; did you mean 'select'?"),
        ("[tool.grpo-lint]\nworld-size = 0\n", 2, "world-size must be an integer in [1, 1048576]"),
        ('[tool.grpo-lint]\nworld-size = "8"\n', 2, "world-size must be an integer"),
        ('[tool.grpo-lint]\nselect = ["E501"]\n', 2, "'E501' is not a known rule code or prefix"),
        ('[tool.grpo-lint]\ntarget = "trl==banana"\n', 2, "'banana' is not a version"),
        ('[tool.grpo-lint]\nfail-on = "fatal"\n', 2, "fail-on must be one of error, warning, info"),
        ('[tool.grpo-lint]\n\n[tool.grpo-lint.severity]\nGRPO205 = "loud"\n', 4, "GRPO205 must be one of"),
        ('[tool.grpo-lint]\nseverity = {GRPO999 = "error"}\n', 2, "'GRPO999' is not a known rule code"),
        ("[tool.grpo-lint.thresholds]\nmin-top-q = 0.5\n", 2, "did you mean 'min-top-p'?"),
        ("[tool.grpo-lint.thresholds]\nmin-top-p = 1.5\n", 2, "min-top-p must be a number in [0.0, 1.0]"),
        ("[tool.grpo-lint]\nselect = [\n", 3, "invalid TOML"),
    ],
)
def test_bad_settings_are_errors_with_a_position(tmp_path, settings, line, message):
    project(tmp_path, settings)
    with pytest.raises(ConfigError) as caught:
        load(tmp_path / "pyproject.toml")
    assert caught.value.line == line
    assert message in caught.value.message
    result = run_cli("configs", cwd=tmp_path)
    assert result.returncode == 2
    assert f"pyproject.toml:{line}:" in result.stderr and "Traceback" not in result.stderr


def test_loaded_values_have_the_types_options_expect(tmp_path):
    project(
        tmp_path,
        """\
[tool.grpo-lint]
select = ["grpo1", "GRPO2"]
severity = {GRPO205 = "info"}
thresholds = {min-top-k = 10}
""",
    )
    settings = load(tmp_path / "pyproject.toml").settings
    assert settings["select"] == frozenset({"GRPO1", "GRPO2"})
    assert settings["severity"] == {"GRPO205": Severity.INFO}
    assert settings["thresholds"].min_top_k == 10 and settings["thresholds"].min_top_p == 0.5
