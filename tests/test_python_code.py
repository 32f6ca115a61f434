"""Python training code: GRPOConfig(...) calls and the seeding rules GRPO301-303, read with ast only."""

from __future__ import annotations

import json

import pytest

from grpo_lint.engine import lint_text

from .conftest import options_from, run_cli

DISTRIBUTED = "import torch\nfrom accelerate import Accelerator\naccelerator = Accelerator()\n"
SAMPLES = "\ndef rollout(model, prompts):\n    return model.generate(prompts, do_sample=True)\n"


def found(text: str, name: str = "train_grpo.py", args: str = "--target trl==1.16.0 --world-size 4"):
    return [(d.code, d.span.line) for d in lint_text(text, name, options_from(args), kind="python").diagnostics]


def test_grpo_config_keywords_are_linted_at_their_position():
    text = 'from trl import GRPOConfig\ncfg = GRPOConfig(\n    output_dir="o",\n    num_generations=16,\n'
    text += "    per_device_train_batch_size=6,\n    learning_rate=lr,\n)\n"
    result = lint_text(text, "t.py", options_from("--target trl==1.16.0 --world-size 4"), kind="python")
    (group,) = result.diagnostics
    assert (group.code, group.span.line, group.span.column, group.key) == ("GRPO102", 4, 5, "num_generations")
    assert "learning_rate" not in result.plans[0].document.entries  # not a literal: not checked
    # `**extra` may set gradient_accumulation_steps (2 makes 48 completions, 3 groups): nothing to say
    spread = text.replace("learning_rate=lr,\n", "learning_rate=lr,\n    **extra,\n")
    assert (
        lint_text(spread, "t.py", options_from("--target trl==1.16.0 --world-size 4"), kind="python").diagnostics == []
    )


def test_a_keyword_whose_value_is_not_a_literal_is_judged_by_its_name_only():
    text = "from trl import GRPOConfig\nn = int(input())\ncfg = GRPOConfig(\n    num_generations=n,\n"
    text += "    per_device_train_batch_size=5,\n    max_prompt_length=max_len,\n    vllm_device=dev,\n)\n"
    # the removed key is reported whatever its value; the group size nobody knows blames no default (8)
    assert found(text, args="--target trl==0.28.0 --world-size 4") == [("GRPO004", 6), ("GRPO004", 7)]
    assert found(text, args="--target trl==0.28.0") == [("GRPO004", 6), ("GRPO004", 7)]  # no GRPO106 either
    known = text.replace("num_generations=n", "num_generations=8")
    assert ("GRPO102", 4) in found(known, args="--target trl==0.28.0 --world-size 4")


def test_a_group_of_one_is_one_whatever_batch_the_run_computes():
    """The batch is not known before launch, but `num_generations=1` is a group of one at any batch size."""
    text = "from trl import GRPOConfig\ncfg = GRPOConfig(\n    per_device_train_batch_size=pdb,\n"
    text += "    num_generations={n},\n)\n"
    assert found(text.format(n=1)) == [("GRPO101", 4)]
    assert found(text.format(n=1), args="--target trl==1.16.0") == [("GRPO101", 4)]
    (group,) = lint_text(text.format(n=1), "t.py", options_from("--target trl==1.16.0"), kind="python").diagnostics
    assert group.fixes == () and "per_device_train_batch_size not known before launch" in group.fix  # no divisor
    assert found(text.format(n=3)) == []  # a batch nobody knows: no divisibility verdict


def test_a_keyword_that_names_a_constant_takes_its_value():
    """`G = 1` bound once (at the module's top level, or in the calling function), then `num_generations=G`."""
    args = "--target trl==1.16.0 --world-size 1"
    module = "from trl import GRPOConfig\nG = {g}\nB = 4\n"
    module += "cfg = GRPOConfig(num_generations=G, per_device_train_batch_size=B)\n"
    assert found(module.format(g=1), args=args) == [("GRPO101", 4)]
    assert found(module.format(g=3), args=args) == [("GRPO102", 4)]  # 4 completions, groups of 3
    assert found(module.format(g=2), args=args) == []
    local = "from trl import GRPOConfig\ndef main():\n    g = {g}\n    return GRPOConfig(num_generations=g)\n"
    assert found(local.format(g=1), args=args) == [("GRPO101", 4)]
    assert found(local.format(g=4), args=args) == []
    (group,) = lint_text(module.format(g=1), "t.py", options_from(args), kind="python").diagnostics
    assert group.span.line == 4 and all(edit.span.line == 4 for fix in group.fixes for edit in fix.edits)


def test_a_constant_bound_to_another_constant_or_in_a_chain_takes_its_value():
    """`B = G` (one name bound to another constant) and `G = B = 4` (one literal bound to two names)."""
    args = "--target trl==1.16.0 --world-size 1"
    call = "cfg = GRPOConfig(num_generations={g}, per_device_train_batch_size=B)\n"
    aliased = "from trl import GRPOConfig\nG = 6\nB = G\n" + call.format(g=4)
    assert found(aliased, args=args) == [("GRPO102", 4)]  # 6 completions, groups of 4
    assert found(aliased.replace("G = 6", "G = 8"), args=args) == []
    assert found(aliased.replace("G = 6", "G = 6\nG = 8"), args=args) == []  # G bound twice: not known
    chained = "from trl import GRPOConfig\nG = B = 3\n" + call.format(g="G")
    assert found(chained, args=args) == []  # 3 completions, groups of 3
    assert found(chained.replace("B = 3", "B = 1"), args=args) == [("GRPO101", 3)]


@pytest.mark.parametrize(
    "rebinding",
    [
        "if fast:\n    G = 8\n",  # bound twice
        "def tweak():\n    global G\n    G = 8\n",
        "for G in (1, 2):\n    pass\n",
        "from settings import *\n",
        "from settings import G\n",
    ],
)
def test_a_name_bound_more_than_once_is_no_constant(rebinding):
    text = "from trl import GRPOConfig\nG = 1\n" + rebinding + "cfg = GRPOConfig(num_generations=G)\n"
    assert found(text, args="--target trl==1.16.0 --world-size 1") == []
    shadowed = "from trl import GRPOConfig\nG = 1\ndef build(G):\n    return GRPOConfig(num_generations=G)\n"
    assert found(shadowed, args="--target trl==1.16.0 --world-size 1") == []


def test_a_run_that_learns_nothing_loses_no_learning_signal():
    """A GRPOTrainer made to evaluate (`learning_rate=0.0`): near-greedy sampling is its choice, not a lost signal;
    what stops the run (a group of one TRL rejects) is still said."""
    args = "--target trl==1.16.0 --world-size 1"
    text = "from trl import GRPOConfig\ncfg = GRPOConfig(learning_rate={lr}, temperature=1e-16, num_generations={n})\n"
    assert found(text.format(lr="1e-6", n=8), args=args) == [("GRPO205", 2)]
    assert found(text.format(lr="0.0", n=8), args=args) == []
    assert found(text.format(lr="0", n=1), args=args) == [("GRPO101", 2)]


def test_a_call_that_spreads_a_mapping_blames_no_default_it_may_set():
    """`GRPOConfig(**kwargs, num_generations=3)`: the batch may come from kwargs; TRL's default 8 is not the run's."""
    call = "from trl import GRPOConfig\nkw = load()\ncfg = GRPOConfig({spread}num_generations=3{more})\n"
    args = "--target trl==1.16.0 --world-size 1"
    assert found(call.format(spread="", more=""), args=args) == [("GRPO102", 3)]  # 8 per device, groups of 3
    assert found(call.format(spread="**kw, ", more=""), args=args) == []
    # what the call writes is still judged
    assert found(call.format(spread="**kw, ", more=", temperature=0.0"), args=args) == [("GRPO201", 3)]


def test_keywords_collected_in_a_dict_before_the_call_are_the_calls():
    """`kw = dict(...)` (or `{"k": v}`), `kw["k"] = v`, then `GRPOConfig(**kw)`: each at its place in the dict."""
    args = "--target trl==1.16.0 --world-size 1"
    built = "from trl import GRPOConfig\nkw = dict(num_generations=3, per_device_train_batch_size={batch})\n"
    assert found(built.format(batch=4) + "GRPOConfig(**kw)\n", args=args) == [("GRPO102", 2)]
    assert found(built.format(batch=6) + "GRPOConfig(**kw)\n", args=args) == []
    literal = 'from trl import GRPOConfig\nkw = {\n    "num_generations": 3,\n    "temperature": 0.0,\n}\n'
    assert found(literal + "GRPOConfig(per_device_train_batch_size=6, **kw)\n", args=args) == [("GRPO201", 4)]
    # a key added later is checked by its name (a typo), its value never (it may be added on one path only)
    added = built.format(batch=6) + 'if x:\n    kw["num_generation"] = 2\nGRPOConfig(**kw)\n'
    assert found(added, args=args) == [("GRPO002", 4)]
    # changed in a way not read here: the call spreads an unknown mapping, and no default is blamed
    for change in ("kw.update(extra)\n", "tweak(kw)\n", "kw |= extra\n", 'del kw["num_generations"]\n'):
        assert found(built.format(batch=4) + change + "GRPOConfig(**kw)\n", args=args) == [], change


@pytest.mark.parametrize(
    ("value", "expect"),
    [
        ("'none'", "as true, the opposite of what 'none' says"),
        ("'group'", "as true."),
        ("'true'", None),
        ("False", None),
    ],
)
def test_a_string_for_a_boolean_in_a_call_runs_as_true(value, expect):
    """Before TRL 0.22 `scale_rewards` takes true or false. A config file's "none" stops the argument parser; a call
    keeps it, and a non-empty string counts as true (the rewards are scaled)."""
    code = f"from trl import GRPOConfig\nGRPOConfig(output_dir='o', scale_rewards={value}, num_generations=4)\n"
    found = lint_text(code, "train.py", options_from("--target trl==0.19.1 --world-size 1")).diagnostics
    if expect is None:
        assert [d.code for d in found] == []
        return
    (warning,) = found
    assert (warning.code, warning.severity.label, warning.span.line) == ("GRPO006", "warning", 2)
    assert expect in warning.message and "scale_rewards=" in warning.message
    # at 0.22 the strings are the setting's own choices
    assert lint_text(code, "train.py", options_from("--target trl==0.22.0 --world-size 1")).diagnostics == []


def test_a_typo_in_a_keyword_is_reported():
    assert found('GRPOConfig(output_dir="o", num_generation=8)\n') == [("GRPO002", 1)]


@pytest.mark.parametrize(
    "seed",
    [
        "torch.manual_seed(1337)",
        "torch.cuda.manual_seed_all(args.seed)",
        "set_seed(42)",
        "seed_everything(args.seed)",
    ],
)
def test_constant_seeds_in_distributed_sampling_code(seed):
    assert found(DISTRIBUTED + seed + "\n" + SAMPLES) == [("GRPO301", 4)]


def test_a_seed_of_pythons_or_numpys_stream_reaches_only_draws_from_it():
    # generate() samples from torch's stream: random.seed / np.random.seed do not make its completions alike.
    for seed in ("import random\nrandom.seed(0)", "import numpy as np\nnp.random.seed(42)"):
        assert found(DISTRIBUTED + seed + "\n" + SAMPLES) == []
    draws = "temperature = random.choice([0.7, 1.0])\n"
    assert found(DISTRIBUTED + "import random\nrandom.seed(0)\n" + draws) == [("GRPO301", 5)]
    assert found(DISTRIBUTED + "import random\nnp.random.seed(0)\n" + draws) == []


@pytest.mark.parametrize(
    "seed",
    [
        "torch.manual_seed(1337 + accelerator.process_index)",
        "torch.manual_seed(args.seed + rank)",
        'random.seed(args.seed + int(os.environ["LOCAL_RANK"]))',
        "set_seed(args.seed, device_specific=True)",
    ],
)
def test_rank_aware_seeds_are_quiet(seed):
    assert found(DISTRIBUTED + seed + "\n" + SAMPLES) == []


def test_a_seed_offset_by_the_gpu_a_worker_process_drives_is_per_process():
    """`mp.Process(target=worker, args=(gpu_id, ...))`, one GPU per process: `seed + gpu_id` differs in each."""
    worker = (
        "import torch\nimport torch.multiprocessing as mp\n\n"
        "def worker(gpu_id, seed, model, prompts):\n"
        "    torch.manual_seed({seed})\n"
        "    return model.generate(prompts, do_sample=True)\n\n"
        "for gpu_id in range(8):\n"
        "    mp.Process(target=worker, args=(gpu_id, 1, None, [])).start()\n"
    )
    for per_process in ("seed + gpu_id", "int(seed) + int(gpu_id)", "seed * 100 + device_idx"):
        assert found(DISTRIBUTED + worker.format(seed=per_process)) == [], per_process
    assert found(DISTRIBUTED + worker.format(seed="1337")) == [("GRPO301", 8)]
    assert found(DISTRIBUTED + worker.format(seed="1337 + gpu_count")) == [("GRPO301", 8)]


def test_single_process_code_and_tests_are_quiet():
    single = "import torch\ntorch.manual_seed(1337)\n" + SAMPLES
    assert found(single) == []
    assert found(DISTRIBUTED + "torch.manual_seed(1337)\n" + SAMPLES, name="tests/test_seeding.py") == []
    assert found("import pytest\n" + DISTRIBUTED + "torch.manual_seed(1) \n" + SAMPLES) == []


def test_module_seed_before_a_grpo_trainer_is_quiet_but_not_inside_a_subclass():
    script = "from trl import GRPOTrainer\n" + DISTRIBUTED + "set_seed(42)\ntrainer = GRPOTrainer(model=m)\n"
    assert found(script) == []
    subclass = "from trl import GRPOTrainer\nclass T(GRPOTrainer):\n    def step(self):\n        set_seed(1)\n"
    assert found(subclass) == [("GRPO302", 4)]


def test_distributed_sampler():
    # The run has a seed (args.seed): a sampler that does not follow it shuffles the same in every run.
    base = "from torch.utils.data import DistributedSampler\nset_seed(args.seed)\n"
    assert found(base + "s = DistributedSampler(ds)\n") == [("GRPO303", 3)]
    assert found(base + "s = DistributedSampler(ds, seed=0)\n") == [("GRPO303", 3)]
    assert found(base + "s = DistributedSampler(ds, seed=args.seed)\n") == []
    assert found(base + "s = DistributedSampler(ds, shuffle=False)\n") == []
    # A script with no seed of its own to follow: nothing to change.
    assert found("from torch.utils.data import DistributedSampler\ns = DistributedSampler(ds)\n") == []


def test_syntax_errors(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    named = run_cli("broken.py", cwd=tmp_path)
    assert (
        named.returncode == 1
        and "broken.py:1:7: error[GRPO001] cannot be read as a config: Python syntax" in named.stdout
    )
    walked = run_cli(".", "--format", "json", cwd=tmp_path)
    assert json.loads(walked.stdout)["summary"]["files"][0]["status"] == "skipped"


def test_python_files_without_grpo_code_are_skipped(tmp_path):
    (tmp_path / "utils.py").write_text("def add(a, b):\n    return a + b\n")
    result = run_cli(".", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0 and json.loads(result.stdout)["summary"]["files_skipped"] == 1


def test_seeding_that_is_right_is_not_flagged():
    # TRL's RepeatSampler seeds its own torch.Generator alike on every rank: the prompt order must match.
    sampler = (
        "import torch\nimport torch.distributed as dist\nclass RepeatSampler:\n    def __init__(self, seed):\n"
        "        self.generator = torch.Generator()\n        self.generator.manual_seed(seed)\n"
        "def gen(model):\n    return model.generate()\n"
    )
    assert found(sampler) == []
    # A trainer that never samples (SFT, DPO, reward) seeds for itself.
    sft = (
        "from trl import GRPOConfig\nfrom transformers import Trainer\nclass MySFT(Trainer):\n"
        "    def __init__(self, a):\n        set_seed(a.seed)\n"
    )
    assert found(DISTRIBUTED + sft) == []
    # A one-process vLLM script that seeds before generating samples distinct completions per prompt.
    offline = "from trl import GRPOConfig\ndef main(a, llm):\n    set_seed(a.seed)\n    return llm.generate([])\n"
    assert found(offline) == []
    # distributed: every rank would sample the same stream (the seeding line, after the DDP header)
    assert found(DISTRIBUTED + offline) == [("GRPO302", DISTRIBUTED.count("\n") + 3)]


def test_ddp_script_with_one_seed_for_every_rank():
    # No sampling: the same dropout masks and augmentations on every rank, a milder warning.
    ddp = (
        "import torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\ntorch.manual_seed(1337)\n"
        "for batch in loader:\n    model(batch).sum().backward()\n"
    )
    (warning,) = lint_text(ddp, "ddp.py", options_from("--world-size 4"), kind="python").diagnostics
    assert (warning.code, warning.span.line) == ("GRPO301", 4) and "dropout masks" in warning.message
    assert "the `backward` on line 6" in warning.message
    assert found(ddp.replace("torch.manual_seed(1337)", "torch.manual_seed(1337 + dist.get_rank())")) == []
    # A distributed script that never trains (an evaluation) is left alone.
    assert found(ddp.replace("    model(batch).sum().backward()\n", "    print(batch)\n")) == []


def test_unsloth_adjusts_the_batch_instead_of_failing():
    # unsloth/models/rl.py (2026.10): per_device_train_batch_size becomes num_generations, with a printout.
    config = "from trl import GRPOConfig\nargs = GRPOConfig(per_device_train_batch_size=2, num_generations=6)\n"
    assert [c for c, _ in found(config, args="--target trl==1.16.0 --world-size 1")] == ["GRPO102"]
    unsloth = lint_text("from unsloth import FastLanguageModel\n" + config, "t.py", options_from("--world-size 1"))
    (note,) = [d for d in unsloth.diagnostics if d.code == "GRPO102"]
    assert note.severity.label == "warning" and "We will change the batch size of 2" in note.message
    assert "num_generations 2" in (note.fix or "")  # keeps the written batch; never proposes Unsloth's 6
    # With generation_batch_size written Unsloth does not step in: TRL's error stands.
    fixed = config.replace("num_generations=6)", "num_generations=6, generation_batch_size=4)")
    assert "error" in {
        d.severity.label
        for d in lint_text("import unsloth\n" + fixed, "t.py", options_from("--world-size 1")).diagnostics
    }


def test_unsloth_before_trl_0_18_replaces_a_devices_batch_on_any_process_count():
    """For TRL before 0.18.0, Unsloth checks one device's batch (rl_replacements.grpo_trainer_fix_batch_size), so a
    file no launch names (the process count unknown) is judged too; from 0.18.0 its check counts the processes."""
    code = (
        "from unsloth import FastLanguageModel\nfrom trl import GRPOConfig\n"
        "args = GRPOConfig(per_device_train_batch_size=1, num_generations=6)\n"
    )

    def batch_notes(text: str, target: str) -> list[str]:
        result = lint_text(text, "t.py", options_from(f"--target trl=={target}"), kind="python")
        return [d.message for d in result.diagnostics if d.code == "GRPO102"]

    (note,) = batch_notes(code, "0.15.1")
    assert note.startswith("per_device_train_batch_size 1 is not a multiple of num_generations 6")
    assert "We will change the batch size of 1" in note
    assert batch_notes(code.replace("size=1,", "size=12,"), "0.15.1") == []
    assert batch_notes(code, "0.19.0") == []  # the process count decides there, and no launch gives it


def test_use_vllm_false_does_nothing_for_an_unsloth_model_loaded_with_fast_inference():
    """A model from `FastLanguageModel.from_pretrained(..., fast_inference=True)` carries a vLLM engine, and Unsloth's
    patched GRPOTrainer turns use_vllm on: a written `use_vllm=False` is set for nothing."""
    code = (
        "from unsloth import FastLanguageModel\nfrom trl import GRPOConfig\n"
        "model, tok = FastLanguageModel.from_pretrained('m', fast_inference=True)\n"
        "args = GRPOConfig(use_vllm=False, num_generations=4, per_device_train_batch_size=4)\n"
    )

    def forced(text: str) -> list[tuple[int, int]]:
        result = lint_text(text, "t.py", options_from("--target trl==0.15.1"), kind="python")
        return [(d.span.line, d.span.column) for d in result.diagnostics if d.code == "GRPO401"]

    assert forced(code) == [(4, 19)]
    assert forced(code.replace("fast_inference=True", "fast_inference=False")) == []
    assert forced(code.replace("use_vllm=False", "use_vllm=True")) == []
    assert forced(code.replace("from unsloth import FastLanguageModel\n", "")) == []


def test_the_fields_unsloths_config_adds_are_known_where_unsloth_is_imported():
    # unsloth/models/rl.py: UnslothGRPOConfig adds vllm_sampling_params, unsloth_num_chunks, ... to TRL's.
    config = (
        "from trl import GRPOConfig\n"
        "args = GRPOConfig(num_generations=4, per_device_train_batch_size=4, vllm_sampling_params=params,\n"
        "    unsloth_num_chunks=-1)\n"
    )
    plain = lint_text(config, "t.py", options_from("--target trl==0.22.2 --world-size 1")).diagnostics
    assert sorted(d.key for d in plain if d.code == "GRPO002") == ["unsloth_num_chunks", "vllm_sampling_params"]
    unsloth = lint_text("from unsloth import FastLanguageModel\n" + config, "t.py", options_from("--world-size 1"))
    assert [d for d in unsloth.diagnostics if d.code == "GRPO002"] == []


def test_the_libraries_set_seed_in_code_that_never_samples_is_their_trainers_own_convention():
    # transformers' Trainer calls set_seed(args.seed) on every rank itself: an SFT script that does the same
    # draws dropout alike on every rank, and makes no group alike.
    sft = (
        "import torch.distributed as dist\nfrom accelerate.utils import set_seed\ndist.init_process_group('nccl')\n"
        "set_seed(args.seed)\nfor batch in loader:\n    model(batch).loss.backward()\n"
    )
    assert found(sft) == []
    assert found(sft.replace("set_seed(args.seed)", "torch.manual_seed(1337)")) == [("GRPO301", 4)]
    # Where the code samples, the same call gives every rank the same completions.
    assert found(sft + SAMPLES) == [("GRPO301", 4)]


_TRICKY = (
    "import os\r\nfrom trl import TrlParser, GRPOConfig\r\n\x0c\r\n"
    "parser = TrlParser((ScriptArguments,\r\n    GRPOConfig))  # 'é' before: byte offsets\r\n"
    "x = f'{os.environ[\"RANK\"]}'; torch.manual_seed(42 + int(os.environ['RANK']))\n"
    "class T(GRPOTrainer):\n    def step(self):\n        set_seed(self.args.seed)\n        self.generate()\n"
)


def _sources() -> list[tuple[str, str]]:
    from pathlib import Path

    import grpo_lint

    package = Path(grpo_lint.__file__).parent
    names = ("sources/python_code.py", "engine.py", "lint.py", "workspace/modules.py", "checks/code.py")
    texts = [(name, (package / name).read_text(encoding="utf-8")) for name in names]
    return [*texts, ("tricky.py", _TRICKY)]


def test_the_fast_traversal_reads_what_ast_nodevisitor_reads():
    """The visitor's own dispatch and child walk (skipping expression contexts) give the result that
    ast.NodeVisitor's generic traversal gives, on grpo-lint's own sources and a file of odd line breaks."""
    import ast

    from grpo_lint.sources import python_code
    from grpo_lint.sources.python_syntax import parse

    class Reference(python_code._Visitor):
        visit = ast.NodeVisitor.visit
        generic_visit = ast.NodeVisitor.generic_visit

    for path, text in _sources():
        tree = parse(text, filename=path)
        fast, slow = python_code._Visitor(text), Reference(text)
        fast.visit(tree)
        slow.visit(tree)
        assert fast.result(path) == slow.result(path), path
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                ours, theirs = fast._segment(node), ast.get_source_segment(text, node)
                assert ours.split() == theirs.split(), (path, node.lineno)  # line ends aside
    (parser,) = python_code.read(_TRICKY, "tricky.py").index.parsers
    assert parser.text == "TrlParser((ScriptArguments, GRPOConfig))"


def test_a_grpo_config_class_of_the_repositorys_own_is_not_trls():
    own = "from src.model import GRPOConfig\nCONFIG = GRPOConfig(lr=1e-5, num_trajectories=2, kl_coef=0.01)\n"
    assert found(own) == []
    defined = "class GRPOConfig:\n    pass\n\nGRPOConfig(num_generations=1)\n"
    assert found(defined) == []
    # TRL's, imported or through the module, or of unknown origin: judged as TRL's
    assert found("from trl import GRPOConfig\nGRPOConfig(num_generations=1)\n") == [("GRPO101", 2)]
    assert found("import trl\ntrl.GRPOConfig(num_generations=1)\n") == [("GRPO101", 2)]
    assert found("GRPOConfig(num_generations=1)\n") == [("GRPO101", 1)]


LAUNCHER = """\
import subprocess
import sys

N_GPUS = int(sys.argv[1])
cmd = [
    sys.executable, "-m", "verl.trainer.main_ppo",
    "algorithm.adv_estimator=grpo",
    "{key}=42",
    f"trainer.n_gpus_per_node={{N_GPUS}}",
]
{more}subprocess.run(cmd, check=True)
"""


def launched(text: str) -> list[tuple[str, int, int]]:
    result = lint_text(text, "launch.py", options_from("--target verl==0.7.1"), kind="python")
    return [
        (d.code, d.span.line, d.span.column) for d in result.diagnostics if d.code in ("GRPO002", "GRPO507", "GRPO111")
    ]


def test_a_command_line_the_program_starts_is_a_launch_read_at_its_elements():
    """`subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", ...])`: each element is a word of the launch, at
    its own line and column (inside the string's quotes); an f-string's key is checked, its `{...}` not known."""
    found = launched(LAUNCHER.format(key="trainer.seed", more=""))
    assert ("GRPO002", 8, 6) in found  # `trainer.seed` is no key of verl's config: Hydra stops
    assert ("GRPO507", 9, 31) in found  # `{N_GPUS}` is known only at launch
    assert "GRPO002" not in [code for code, _, _ in launched(LAUNCHER.format(key="trainer.total_epochs", more=""))]
    # a list the code adds to may carry more words: what is written is still checked, no key is called unset
    more = launched(LAUNCHER.format(key="trainer.seed", more='cmd.append("data.train_batch_size=8")\n'))
    assert ("GRPO002", 8, 6) in more and "GRPO111" not in [code for code, _, _ in more]
    assert "GRPO111" in [code for code, _, _ in found]
    # a command string a shell reads
    system = 'import os\nos.system("python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo trainer.seed=1")\n'
    assert ("GRPO002", 2, 74) in launched(system)
    # a list that is only printed starts nothing; a string without a shell is a program's name
    assert (
        launched(LAUNCHER.format(key="trainer.seed", more="").replace("subprocess.run(cmd, check=True)", "print(cmd)"))
        == []
    )
    assert launched('import subprocess\nsubprocess.run("python3 -m verl.trainer.main_ppo trainer.seed=1")\n') == []


def test_a_function_that_starts_the_command_it_is_given_makes_its_callers_lists_launches():
    """`def run(command): subprocess.run([str(p) for p in command], check=True)` then `run([sys.executable, ...])`: the
    list is the command that runs (a notebook's helper, a pipeline's step runner)."""
    helper = "import subprocess, sys\n\ndef run(command, check=True):\n    print(command)\n"
    helper += "    subprocess.run([str(part) for part in command], check=check)\n\n"
    call = 'run([sys.executable, "-m", "verl.trainer.main_ppo", "algorithm.adv_estimator=grpo", "{key}=1"])\n'
    assert ("GRPO002", 7, 86) in launched(helper + call.format(key="trainer.seed"))
    assert "GRPO002" not in [code for code, _, _ in launched(helper + call.format(key="trainer.total_epochs"))]
    # a function that starts something else (its own list), or only prints what it is given, launches nothing given
    printer = helper.replace("[str(part) for part in command]", '["nvidia-smi"]')
    assert launched(printer + call.format(key="trainer.seed")) == []
    shell = 'import os\n\ndef sh(line):\n    os.system(line)\n\nsh("python3 -m verl.trainer.main_ppo trainer.seed=1")\n'
    assert "GRPO002" in [code for code, _, _ in launched(shell)]


def test_a_keyword_written_twice_in_a_grpo_config_call_stops_the_module():
    """Python's parser accepts `GRPOConfig(logging_steps=1, ..., logging_steps=5)`; its compiler refuses the module."""
    twice = (
        "from trl import GRPOConfig\ncfg = GRPOConfig(\n    logging_steps=1,\n    beta=0.0,\n    logging_steps=5,\n)\n"
    )
    assert found(twice) == [("GRPO001", 5)]
    assert found(twice.replace("    logging_steps=5,\n", "    save_steps=5,\n")) == []


def test_values_the_code_computes_are_listed_as_not_checked():
    text = "from trl import GRPOConfig\ncfg = GRPOConfig(num_generations=cfg.group, beta=0.0)\n"
    result = lint_text(text, "t.py", options_from("--target trl==1.16.0 --world-size 1"), kind="python")
    assert result.diagnostics == []
    assert any("num_generations are computed by the code" in line for line in result.unchecked)
    literal = lint_text(text.replace("cfg.group", "4"), "t.py", options_from("--target trl==1.16.0"), kind="python")
    assert not any("computed by the code" in line for line in literal.unchecked)


def test_a_mapping_spread_into_the_call_is_listed_as_not_checked():
    text = 'from trl import GRPOConfig\ncfg = GRPOConfig(output_dir="o", **config["grpo"])\n'
    result = lint_text(text, "t.py", options_from("--target trl==1.16.0 --world-size 1"), kind="python")
    assert result.diagnostics == []
    assert any("line 2: the fields a `**mapping`" in line for line in result.unchecked)
    bare = text.replace(', **config["grpo"]', "")
    plain = lint_text(bare, "t.py", options_from("--target trl==1.16.0"), kind="python")
    assert not any("**mapping" in line for line in plain.unchecked)


def test_a_grpo_config_imported_under_another_name_is_trls():
    aliased = "from trl import GRPOConfig as TRLGRPOConfig\ncfg = TRLGRPOConfig(num_generations=1)\n"
    assert found(aliased) == [("GRPO101", 2)]
    assert found(aliased.replace("num_generations=1", "num_generations=4")) == []
    own = "from mylib import Config as TRLGRPOConfig\ncfg = TRLGRPOConfig(num_generations=1)\n"
    assert found(own) == []


def test_a_key_of_another_trl_parser_class_says_where_it_belongs():
    """`GRPOConfig(use_peft=True)`: ModelConfig takes it, the constructor raises; the fix names the reader."""
    text = "from trl import GRPOConfig\ncfg = GRPOConfig(num_generations=4, use_peft=True)\n"
    (error,) = lint_text(text, "t.py", options_from("--target trl==1.16.0 --world-size 1"), kind="python").diagnostics
    assert (error.code, error.severity.name, error.span.line) == ("GRPO002", "ERROR", 2)
    assert "unexpected keyword argument 'use_peft'" in error.message and "peft_config=" in error.fix


def test_a_keyword_no_release_of_grpo_trainer_takes_stops_the_script():
    """`GRPOTrainer(model=m, ref_model=r, tokenizer=t)`: TRL's GRPOTrainer has taken `processing_class` (never
    `tokenizer`) and builds its own reference model, with no `**kwargs`, from 0.14.0 on: a TypeError at start-up."""
    text = (
        "from trl import GRPOTrainer\n\n\ndef build(model, ref, tok, cfg, rewards):\n    return GRPOTrainer(\n"
        "        model=model, ref_model=ref, args=cfg,\n        tokenizer=tok, reward_funcs=rewards,\n    )\n"
    )
    assert found(text) == [("GRPO002", 6), ("GRPO002", 7)]
    fixed = text.replace("ref_model=ref, ", "").replace("tokenizer=tok", "processing_class=tok")
    assert found(fixed) == []
    # Unsloth's patched trainer takes more; a trainer of another package (verifiers, a fork) is its own
    assert found("import unsloth\n" + text) == []
    assert found(text.replace("from trl import GRPOTrainer", "from verifiers import GRPOTrainer")) == []
    assert found(text.replace("from trl import GRPOTrainer\n", "")) == []  # origin not shown: not judged


def test_a_keyword_transformers_train_does_not_take_stops_the_run():
    """`trainer.train(max_steps=10)` on TRL's GRPOTrainer: transformers' Trainer.train takes resume_from_checkpoint,
    trial and ignore_keys_for_eval, and raises TypeError on any other keyword."""
    text = (
        "from trl import GRPOConfig, GRPOTrainer\n\ntrainer = GRPOTrainer(model=m, args=GRPOConfig(output_dir='o'), "
        "reward_funcs=[])\ntrainer.train(max_steps=10)\n"
    )
    assert found(text) == [("GRPO002", 4)]
    assert found(text.replace("max_steps=10", "resume_from_checkpoint=True")) == []
    chained = "from trl import GRPOTrainer\nGRPOTrainer(model=m, args=a, reward_funcs=[]).train(max_steps=3)\n"
    assert found(chained) == [("GRPO002", 2)]
    assert found(text.replace("from trl import", "from mylib import")) == []  # another library's trainer


def test_a_repository_that_imports_unsloth_anywhere_runs_unsloths_grpo_trainer(tmp_path):
    """Importing Unsloth in one module of the process (the model's) patches TRL's GRPOTrainer for every other:
    `tokenizer=` in the training module is then Unsloth's to take."""
    train = "from trl import GRPOTrainer\n\ntrainer = GRPOTrainer(model=m, args=a, tokenizer=t, reward_funcs=[])\n"
    (tmp_path / "train.py").write_text(train)
    (tmp_path / "requirements.txt").write_text("trl==0.20.0\n")
    done = run_cli("--format", "json", "--isolated", ".", cwd=tmp_path)
    assert [(d["code"], d["line"]) for d in json.loads(done.stdout)["diagnostics"]] == [("GRPO002", 3)]
    # Unsloth named in words only (a docstring, a comment, a parameter's name): nothing imports it
    words = '"""Swap in Unsloth\'s fast generate if you like."""\n# from unsloth import X\nuse_unsloth_fast = False\n'
    (tmp_path / "model.py").write_text(words)
    done = run_cli("--format", "json", "--isolated", ".", cwd=tmp_path)
    assert [d["code"] for d in json.loads(done.stdout)["diagnostics"]] == ["GRPO002"]
    for statement in ("from unsloth import FastLanguageModel\n", "import os\nimport unsloth\n"):
        (tmp_path / "model.py").write_text(statement)
        done = run_cli("--format", "json", "--isolated", ".", cwd=tmp_path)
        assert json.loads(done.stdout)["diagnostics"] == [], statement
    (tmp_path / "model.py").unlink()
    (tmp_path / "requirements.txt").write_text("trl==0.20.0\nunsloth==2025.6.1\n")
    done = run_cli("--format", "json", "--isolated", ".", cwd=tmp_path)
    assert json.loads(done.stdout)["diagnostics"] == []  # installed with the run's requirements
