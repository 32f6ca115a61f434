"""SARIF and GitHub output checked on real runs: required fields present, annotations parse back."""

from __future__ import annotations

import json
import re

from grpo_lint.formatters.github import escape_data, escape_property

from .conftest import clean_env, run_cli

BAD = "num_processes: 4\nper_device_train_batch_size: 6\nnum_generations: 16\ntemperature: 0.2\n"


def write(tmp_path, name="bad.yaml", text=BAD):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_sarif_has_every_field_github_requires(tmp_path):
    write(tmp_path)
    result = run_cli("bad.yaml", "--target", "trl==1.16.0", "--format", "sarif", cwd=tmp_path)
    assert result.returncode == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "grpo-lint" and driver["semanticVersion"]
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(ids) and "GRPO102" in ids and "GRPO008" in ids
    for rule in driver["rules"]:
        for field in ("shortDescription", "fullDescription", "help"):
            assert rule[field]["text"].strip(), (rule["id"], field)
            assert len(rule[field]["text"]) <= 1024 or field == "help"
        assert rule["name"] and rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert "Why is this bad?" in driver["rules"][ids.index("GRPO201")]["help"]["markdown"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["GRPO102", "GRPO205"]
    for r in results:
        assert r["message"]["text"] and r["level"] in ("error", "warning", "note")
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "bad.yaml"
        region = location["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert all(isinstance(v, int) and v >= 1 for v in region.values())
        assert r["partialFingerprints"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert results[1]["level"] == "warning"


def test_sarif_output_file(tmp_path):
    write(tmp_path)
    result = run_cli("bad.yaml", "--target", "trl==1.16.0", "--format", "sarif", "-o", "out.sarif", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads((tmp_path / "out.sarif").read_text())["runs"][0]["results"]


_ANNOTATION = re.compile(r"^::(error|warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def _unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def parse_annotations(stdout: str) -> list[dict[str, str]]:
    found = []
    for line in stdout.splitlines():
        match = _ANNOTATION.match(line)
        if match:
            props = dict(p.split("=", 1) for p in match.group("props").split(","))
            found.append(
                {"command": match.group(1), **{k: _unescape(v) for k, v in props.items()}}
                | {"message": _unescape(match.group("message"))}
            )
    return found


def test_github_annotations_parse_back(tmp_path):
    write(tmp_path, "odd, name: x.yaml")
    result = run_cli("odd, name: x.yaml", "--target", "trl==1.16.0", "--format", "github", cwd=tmp_path)
    assert result.returncode == 1
    annotations = parse_annotations(result.stdout)
    assert [a["command"] for a in annotations] == ["error", "warning"]
    first = annotations[0]
    assert first["file"] == "odd, name: x.yaml"
    assert (first["line"], first["col"], first["endLine"], first["endColumn"]) == ("3", "1", "3", "16")
    assert first["title"] == "grpo-lint GRPO102 (partial-groups)"
    assert first["message"].startswith("generation batch 24") and "\nfix: num_generations" in first["message"]
    # Only the annotations start with `::`; the summary does not.
    assert sum(line.startswith("::") for line in result.stdout.splitlines()) == 2


def test_github_format_is_chosen_under_github_actions(tmp_path):
    write(tmp_path)
    result = run_cli("bad.yaml", "--target", "trl==1.16.0", cwd=tmp_path, env=clean_env(GITHUB_ACTIONS="true"))
    assert result.stdout.startswith("::error file=bad.yaml,line=3")
    text = run_cli("bad.yaml", "--format", "text", cwd=tmp_path, env=clean_env(GITHUB_ACTIONS="true"))
    assert text.stdout.startswith("bad.yaml:3:1: error[GRPO102]")


def test_escaping():
    assert escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_quiet_drops_the_summary(tmp_path):
    write(tmp_path, "good.yaml", "num_processes: 4\nper_device_train_batch_size: 8\nnum_generations: 8\n")
    assert run_cli("good.yaml", "-q", "--target", "trl==1.16.0", cwd=tmp_path).stdout == ""
    write(tmp_path)
    noisy = run_cli("bad.yaml", "--quiet", "--target", "trl==1.16.0", cwd=tmp_path)
    assert noisy.returncode == 1 and "error[GRPO102]" in noisy.stdout and "Found" not in noisy.stdout


def test_sarif_uris_have_a_base_and_the_run_its_invocation(tmp_path):
    (tmp_path / "bad.yaml").write_text("num_generations: 3\nper_device_train_batch_size: 4\n")
    done = run_cli("bad.yaml", "--format", "sarif", "--world-size", "2", "--target", "trl==1.16.0", cwd=tmp_path)
    run = json.loads(done.stdout)["runs"][0]
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "bad.yaml", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]


def _strict_sarif_model():
    """sarif-pydantic's SARIF 2.1.0 model with unknown properties forbidden, so that a misspelt or
    misplaced property fails validation instead of being carried along."""
    import inspect

    import pytest

    sarif = pytest.importorskip("sarif_pydantic.sarif")
    models = [cls for _, cls in inspect.getmembers(sarif, inspect.isclass) if issubclass(cls, sarif.SarifBaseModel)]
    for cls in models:
        cls.model_config["extra"] = "forbid"
    for cls in models:
        cls.model_rebuild(force=True)
    return sarif.Sarif


def _without_what_the_model_lacks(data: dict) -> dict:
    """Two properties of the SARIF 2.1.0 standard that sarif-pydantic 0.6.2 does not model, checked here
    and removed: run.columnKind (the unit of region columns) and invocation.exitCode."""
    data = json.loads(json.dumps(data))
    for run in data["runs"]:
        assert run.pop("columnKind") in ("utf16CodeUnits", "unicodeCodePoints")
        for invocation in run["invocations"]:
            assert isinstance(invocation.pop("exitCode"), int)
    return data


def test_sarif_validates_against_a_sarif_2_1_0_model(tmp_path):
    write(tmp_path, "bad.yaml", BAD + "num_generation: 4\ntop_k: 1\n")
    write(
        tmp_path, "run.sh", "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo +data.train_batch_size=16\n"
    )
    done = run_cli(".", "--format", "sarif", "--target", "trl==1.16.0", cwd=tmp_path)
    data = json.loads(done.stdout)
    results = data["runs"][0]["results"]
    assert any("fixes" in r for r in results) and len(results) >= 4
    model = _strict_sarif_model()
    data = _without_what_the_model_lacks(data)
    model.model_validate(data)
    data["runs"][0]["results"][0]["ruleid"] = data["runs"][0]["results"][0].pop("ruleId")
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        model.model_validate(data)  # the model is strict enough to catch a misspelt property
