"""The seeding analysis on code written here: flow, helpers across modules, what is rank-dependent, a
trainer that skips its base's seeding, per-request seeds, samplers, framework sources, fixes that fix.

Each form has a failing and a passing case. The five public bugs this project started from are checked at
their real commits in the closing notes; these cases rebuild each shape in a few lines."""

from __future__ import annotations

import json
from pathlib import Path

from grpo_lint.engine import lint_text

from .conftest import options_from, run_cli

DDP = "import torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\n"
TRAIN = "for batch in loader:\n    model(batch).loss.backward()\n"


def codes(text: str, name: str = "train.py") -> list[tuple[str, int]]:
    result = lint_text(text, name, options_from("--target trl==1.16.0 --world-size 4"), kind="python")
    return [(d.code, d.span.line) for d in result.diagnostics]


def lint_repo(root: Path, files: dict[str, str], *args: str) -> list[dict]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    done = run_cli("--format", "json", "--isolated", "--select", "GRPO2,GRPO3", *args, ".", cwd=root)
    return json.loads(done.stdout)["diagnostics"]


# Flow: the seeding that reaches the first random draw decides ---------------------------------------


def test_a_constant_seed_reseeded_per_rank_before_anything_random_is_fine():
    reseeded = DDP + "base = 1337\ntorch.manual_seed(base)\nif dist.is_initialized():\n"
    reseeded += "    torch.manual_seed(base + dist.get_rank())\n" + TRAIN
    assert codes(reseeded) == []
    # Drawn before the reseed: the constant seed reaches it.
    early = DDP + "torch.manual_seed(1337)\nnoise = torch.rand(10)\ntorch.manual_seed(1337 + dist.get_rank())\n"
    assert codes(early + TRAIN) == [("GRPO301", 4)]
    # A data order drawn before the reseed is meant to be the same on every rank: no draw of concern.
    assert codes(early.replace("noise = torch.rand(10)", "order = torch.randperm(10)") + TRAIN) == []


def test_a_seed_drawn_from_a_stream_seeded_per_rank_is_per_rank():
    """`torch.manual_seed(np.random.randint(1 << 31))` is as per-rank as numpy's stream was: seeded with the rank, or
    not seeded at all (each process starts from the system's entropy), the draw differs on every rank; seeded with
    one value for all, it is the same."""
    numpy = DDP + "import numpy as np\n"
    draw = "torch.manual_seed(np.random.randint(1 << 31))\n"
    per_rank = numpy + "np.random.seed((seed * dist.get_world_size() + dist.get_rank()) % (1 << 31))\n" + draw
    assert codes(per_rank + TRAIN) == []
    assert codes(numpy + draw + TRAIN) == []  # never seeded here: entropy, different per process
    assert ("GRPO301", 6) in codes(numpy + "np.random.seed(1234)\n" + draw + TRAIN)
    shared = numpy + "from transformers import set_seed\nset_seed(42)\n" + draw  # seeds numpy with 42 everywhere
    assert codes(shared + TRAIN) == [("GRPO301", 7)]
    python = DDP + "import random\nrandom.seed(dist.get_rank())\ntorch.manual_seed(random.randint(0, 2**31))\n"
    assert codes(python + TRAIN) == []
    assert ("GRPO301", 6) in codes(python.replace("random.seed(dist.get_rank())", "random.seed(0)") + TRAIN)


def test_a_module_imported_only_to_report_its_version_does_not_make_a_script_distributed():
    """`import accelerate` to log `accelerate.__version__` in a single-device smoke script is no process group; the
    same import used to build an `Accelerator` is."""
    script = (
        "import accelerate\nimport torch\n\ntorch.manual_seed(1234)\nout = model.generate(**inputs)\n"
        "print({'accelerate': accelerate.__version__, 'out': out})\n"
    )
    assert codes(script) == []
    used = script.replace("torch.manual_seed(1234)\n", "state = accelerate.Accelerator()\ntorch.manual_seed(1234)\n")
    assert codes(used) == [("GRPO301", 5)]


def test_a_process_group_of_one_process_is_no_distributed_run():
    """A smoke test that builds a process group of one (`init_process_group(..., world_size=1)`, as Megatron needs
    one) runs one process, whatever else reads RANK; a group of the launch's size is distributed."""
    script = (
        "import os\nimport torch\nimport torch.distributed as dist\nos.environ.setdefault('WORLD_SIZE', '1')\n"
        "dist.init_process_group(backend='nccl', rank=0, world_size=1)\ntorch.manual_seed(2024)\n"
        "loss = model(torch.randn(4, 8)).sum()\nloss.backward()\n"
    )
    assert codes(script) == []
    assert codes(script.replace("rank=0, world_size=1", "rank=rank, world_size=world")) == [("GRPO301", 6)]


def test_a_seed_in_a_function_that_builds_data_is_meant_to_be_shared():
    build = "import random\ndef get_data(rows):\n    random.seed(233)\n    return random.sample(rows, 10)\n"
    assert codes(DDP + build + TRAIN) == []  # every rank must build the same data
    trains = build.replace(
        "    return random.sample(rows, 10)\n", "    pick = random.sample(rows, 10)\n    train(pick)\n"
    )
    assert codes(DDP + trains) == [("GRPO301", 6)]


def test_a_seed_in_a_function_that_draws_nothing_is_left_to_its_callers():
    setup = DDP + "class Strategy:\n    def setup(self):\n        self.set_seed(self.seed)\n"
    setup += "    def set_seed(self, seed):\n        torch.manual_seed(seed)\n" + TRAIN
    assert codes(setup) == []  # seeded in a method that draws nothing, from an attribute of its own


# Through calls: a helper is judged where it is called -------------------------------------------------


def test_a_helper_is_judged_at_its_call_sites_across_modules(tmp_path):
    files = {
        "utils.py": (
            "import random\nimport torch\n\ndef setup_seed(seed):\n    random.seed(seed)\n    torch.manual_seed(seed)\n"
        ),
        "train.py": DDP
        + "from utils import setup_seed\nsetup_seed(42 + dist.get_rank())\n"
        + "for epoch in range(3):\n    setup_seed(42 + epoch)\n    order = torch.randperm(10)\n"
        + "    model(order).loss.backward()\n",
        "requirements.txt": "trl==1.16.0\n",
    }
    found = lint_repo(tmp_path, files)
    assert [(d["code"], d["path"], d["line"]) for d in found] == [("GRPO301", "./train.py", 7)]
    assert "setup_seed(42 + epoch)" in found[0]["message"] and "utils.py:5" in found[0]["message"]
    assert "the `backward` on line 9" in found[0]["message"]  # the shared order itself is meant
    # The shared order from a generator of its own: nothing reseeds the global streams.
    files["train.py"] = files["train.py"].replace(
        "    setup_seed(42 + epoch)\n    order = torch.randperm(10)\n",
        "    g = torch.Generator()\n    g.manual_seed(42 + epoch)\n    order = torch.randperm(10, generator=g)\n",
    )
    assert lint_repo(tmp_path, files) == []


def test_a_helper_named_like_a_libraries_seeding_function_is_still_followed(tmp_path):
    files = {
        "utils.py": "import torch\n\ndef set_seed(seed):\n    torch.manual_seed(seed)\n",
        "train.py": DDP + "from utils import set_seed\nset_seed(42)\n" + TRAIN,
    }
    assert [(d["code"], d["line"]) for d in lint_repo(tmp_path, files)] == [("GRPO301", 5)]
    files["train.py"] = files["train.py"].replace("set_seed(42)", "set_seed(42 + dist.get_rank())")
    assert lint_repo(tmp_path, files) == []


def test_a_helper_that_seeds_a_constant_is_reported_in_its_body():
    helper = DDP + "def seed_all():\n    torch.manual_seed(0)\n\nseed_all()\n" + TRAIN
    assert codes(helper) == [("GRPO301", 5)]
    assert codes(helper.replace("torch.manual_seed(0)", "torch.manual_seed(dist.get_rank())")) == []


# What is rank-dependent ---------------------------------------------------------------------------


def test_rank_through_environment_variables_assignments_and_attributes():
    env = DDP + 'local = int(os.environ["LOCAL_RANK"])\nseed = 7 + local\ntorch.manual_seed(seed)\n' + TRAIN
    assert codes(env) == []
    attribute = (
        DDP + "class Loop:\n    def __init__(self, args):\n        self.rank = args.local_rank\n"
        "    def run(self):\n        torch.manual_seed(100 + self.rank)\n        return self.model.generate()\n"
    )
    assert codes(attribute) == []
    # rank 0's seed is one value for every rank
    zero = DDP + "torch.manual_seed(rank_zero_seed)\n" + TRAIN
    assert codes(zero) == [("GRPO301", 4)]


# A trainer that skips the seeding its base does ------------------------------------------------------

SKIPPING = """\
from trl import GRPOTrainer as HFGRPOTrainer

del HFGRPOTrainer.__init__


class GRPOTrainer(HFGRPOTrainer):
    def __init__(self, model, args):
        self.engine = make_engine(model)

    def _generate(self, prompts):
        return self.engine.generate(prompts)
"""


def test_a_trainer_that_deletes_its_bases_init_must_seed_per_process_itself():
    assert codes(SKIPPING) == [("GRPO302", 6)]
    seeded = SKIPPING.replace(
        "        self.engine = make_engine(model)\n",
        "        set_seed(args.seed, device_specific=True)\n        self.engine = make_engine(model)\n",
    )
    assert codes(seeded) == []
    # A subclass that keeps TRL's __init__ is seeded by it.
    assert codes(SKIPPING.replace("del HFGRPOTrainer.__init__\n", "")) == []


def test_a_trainer_that_extends_a_librarys_grpo_trainer_is_seeded_or_samples_off_the_ranks(tmp_path):
    """A repository's trainer that extends an installed library's GRPOTrainer (verifiers' fork of TRL's, which
    samples on a vLLM server rather than on the training ranks) is what a direct `GRPOTrainer(...)` call is: the
    module's constant seed does not make the ranks' completions alike. A trainer of another base is judged."""
    trainers = (
        "from verifiers.trainers.grpo_trainer import GRPOTrainer\n\n\n"
        "class LoggedTrainer(GRPOTrainer):\n    def log(self, logs):\n        return logs\n"
    )
    script = (
        "from accelerate import Accelerator\n\nfrom rlvr.repro import set_seed\nfrom rlvr.trainers import "
        "LoggedTrainer\n\naccelerator = Accelerator()\nset_seed(42)\n\n\ndef main(model, args):\n"
        "    trainer = LoggedTrainer(model=model, args=args)\n    trainer.train()\n"
    )
    repro = "import random\n\nimport torch\n\n\ndef set_seed(s):\n    random.seed(s)\n    torch.manual_seed(s)\n"
    files = {
        "src/rlvr/__init__.py": "", "src/rlvr/repro.py": repro, "src/rlvr/trainers.py": trainers,
        "scripts/train.py": script,
    }  # fmt: skip
    assert lint_repo(tmp_path, files) == []
    other = trainers.replace("verifiers.trainers.grpo_trainer import GRPOTrainer", "mylib.loops import RolloutLoop")
    found = lint_repo(tmp_path, {**files, "src/rlvr/trainers.py": other.replace("(GRPOTrainer)", "(RolloutLoop)")})
    assert [(d["code"], d["line"]) for d in found] == [("GRPO301", 7)]


def test_code_every_launch_runs_on_one_process_shares_no_seed_between_ranks(tmp_path):
    """A script that builds an Accelerator looks distributed, but how many processes run it is the launch's to say:
    where every command of the repository that runs it is a plain `python` (or `accelerate launch` of one process),
    its one process shares a seed with no other. A launch of several processes, or of a count not known (`srun`),
    keeps the finding, as does a repository that shows no launch of it."""
    train = (
        "import torch\nfrom accelerate import Accelerator\n\n\ndef main(model, loader):\n"
        "    accelerator = Accelerator()\n    torch.manual_seed(42)\n    for batch in loader:\n"
        "        model(batch).loss.backward()\n\n\nif __name__ == '__main__':\n    main(None, [])\n"
    )
    files = {"src/pkg/__init__.py": "", "src/pkg/train.py": train}
    assert [d["code"] for d in lint_repo(tmp_path, files)] == ["GRPO301"]  # no launch shown
    one = {**files, "scripts/run.sh": "cd src\npython -m pkg.train --lr 1e-5\n", "run2.sh": "python src/pkg/train.py\n"}
    assert lint_repo(tmp_path, one) == []
    many = {**one, "run2.sh": "accelerate launch --num_processes 4 src/pkg/train.py\n"}
    assert [d["code"] for d in lint_repo(tmp_path, many)] == ["GRPO301"]
    unknown = {**one, "run2.sh": "srun python src/pkg/train.py\n"}
    assert [d["code"] for d in lint_repo(tmp_path, unknown)] == ["GRPO301"]
    single = {**one, "run2.sh": "accelerate launch --num_processes 1 src/pkg/train.py\n"}
    assert lint_repo(tmp_path, single) == []


# A fixed seed on every sampling request -------------------------------------------------------------

REQUESTS = """\
from accelerate import Accelerator


class Rollout:
    def request(self):
        request_config = copy(self.request_config)
        request_config.seed = self.args.seed
        return self.engine.infer(request_config)

    def step(self, loss):
        loss.backward()
"""


def test_a_request_seeded_from_the_runs_config():
    assert codes(REQUESTS) == [("GRPO203", 7)]
    varying = REQUESTS.replace("self.args.seed\n", "self.args.seed + self.accelerator.process_index\n")
    assert codes(varying) == []
    # An evaluation script that never trains samples what it likes.
    assert codes(REQUESTS.replace("    def step(self, loss):\n        loss.backward()\n", "")) == []
    params = "from accelerate import Accelerator\nparams = SamplingParams(seed=args.seed)\nloss.backward()\n"
    assert codes(params) == [("GRPO203", 2)]
    # One request for a prompt's whole group (`n=8`): vLLM seeds its i-th sample with seed + i, so they differ.
    assert codes(params.replace("seed=args.seed", "seed=42, n=8")) == []
    assert codes(params.replace("seed=args.seed", "seed=42, n=num_generations")) == []
    assert codes(params.replace("seed=args.seed", "seed=42, n=1")) == [("GRPO203", 2)]


# Samplers ---------------------------------------------------------------------------------------------


def test_a_sampler_helper_that_hides_the_seed():
    helper = (
        "import torch\n\ndef get_sampler(dataset, *, shuffle=False, rank=None):\n"
        "    return torch.utils.data.DistributedSampler[int](dataset, shuffle=shuffle, rank=rank)\n"
    )
    assert codes(helper) == [("GRPO303", 4)]
    exposed = helper.replace("rank=None)", "rank=None, seed=0)").replace("rank=rank)", "rank=rank, seed=seed)")
    assert codes(exposed) == []


def test_a_shuffling_sampler_that_is_never_told_the_epoch():
    loop = DDP + "sampler = DistributedSampler(ds)\nfor epoch in range(2):\n" + "    model(x).loss.backward()\n"
    assert codes(loop) == [("GRPO305", 4)]
    assert (
        codes(loop.replace("for epoch in range(2):\n", "for epoch in range(2):\n    sampler.set_epoch(epoch)\n")) == []
    )


def test_a_sampler_handed_out_is_told_the_epoch_where_its_loader_is_used(tmp_path):
    strategy = (
        "import torch.distributed as dist\nfrom torch.utils.data import DataLoader, DistributedSampler\n"
        "class Strategy:\n    def setup_dataloader(self, data):\n"
        "        sampler = DistributedSampler(data, rank=dist.get_rank(), seed=self.seed)\n"
        "        return DataLoader(data, sampler=sampler)\n"
        "    def train(self, model, batch):\n        model(batch).loss.backward()\n"
    )
    trainer = (
        "class Trainer:\n    def fit(self, episodes):\n        for episode in range(episodes):\n"
        "            self.loader.sampler.set_epoch(episode)\n"
    )
    alone = lint_repo(tmp_path, {"strategy.py": strategy, "trainer.py": trainer.replace("set_epoch", "note")})
    assert [(d["code"], d["line"]) for d in alone] == [("GRPO305", 5)]
    assert lint_repo(tmp_path, {"strategy.py": strategy, "trainer.py": trainer}) == []


def test_a_frameworks_seeding_that_offsets_by_rank_itself_is_rank_aware():
    # megatron/training/initialize.py: set_random_seed adds the pipeline (and data-parallel) rank itself.
    body = "set_random_seed(args.seed, args.data_parallel_random_init)\nperm = torch.randperm(10)\n" + TRAIN
    megatron = DDP + "from megatron.training import set_random_seed\n" + body
    assert codes(megatron) == []
    plain = DDP + "from mmengine.runner import set_random_seed\n" + body
    assert codes(plain) == [("GRPO301", 5)]
    # From a package grpo-lint does not know, and the repository does not hold: what it does is not shown.
    assert codes(DDP + "from mcore_helpers import set_random_seed\n" + body) == []


# A framework's own sources ----------------------------------------------------------------------------


def test_the_code_rules_apply_to_a_framework_copy(tmp_path):
    files = {
        "swift/cli/rlhf.py": "def main(): ...\n",
        "swift/trainers/grpo_trainer.py": SKIPPING,
        "swift/trainers/broken.yaml": "rlhf_type: grpo\nnum_generations: 1\n",
    }
    found = lint_repo(tmp_path, files, "--target", "swift==4.6.0", "--select", "GRPO1")
    # the trainer is judged by the code rules; the copy's own config files are not user configs
    assert [(d["code"], d["path"]) for d in found] == [("GRPO302", "./swift/trainers/grpo_trainer.py")]


def test_a_framework_copy_is_parsed_only_where_a_seeding_rule_can_report(tmp_path):
    """The copy's GRPOConfig calls and launches are the framework's own: a GRPO name there is no reason to parse."""
    config = "from trl import GRPOConfig\n\ndef make():\n    return GRPOConfig(output_dir='o', num_generations=1)\n"
    seeded = "from trl import GRPOTrainer\nimport torch\n\nclass MyGRPO(GRPOTrainer):\n    def step(self):\n"
    seeded += "        torch.manual_seed(0)\n        return torch.randperm(8)\n"
    files = {"swift/cli/rlhf.py": "def main(): ...\n", "swift/utils/config.py": config}
    files["swift/trainers/mine.py"] = seeded
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    done = run_cli("--verbose", "--isolated", "--target", "swift==4.6.0", ".", cwd=tmp_path)
    assert "swift/utils/config.py: skipped: not parsed: part of a framework's copy, with no sampler" in done.stdout
    assert "swift/trainers/mine.py:6:9: warning[GRPO301]" in done.stdout  # a seed in a GRPO trainer: parsed
    (tmp_path / "train.py").write_text(config)  # the same call in the repository's own code is linted
    done = run_cli("--isolated", ".", cwd=tmp_path)
    assert "train.py:4:" in done.stdout and "GRPO101" in done.stdout


# Fixes that fix ---------------------------------------------------------------------------------------


def test_a_group_of_one_in_a_batch_of_one_is_fixed_with_the_batch(tmp_path):
    script = "NPROC_PER_NODE=1 swift rlhf --rlhf_type grpo --num_generations 1 --per_device_train_batch_size 1\n"
    path = tmp_path / "train.sh"
    path.write_text(script)
    found = json.loads(run_cli("train.sh", "--format", "json", "--target", "swift==4.6.0", cwd=tmp_path).stdout)
    (group,) = found["diagnostics"]
    assert group["code"] == "GRPO101"
    assert "--num_generations: 2, --per_device_train_batch_size: 2" in group["fix"]["message"]
    done = run_cli("train.sh", "--fix", "--unsafe-fixes", "--target", "swift==4.6.0", cwd=tmp_path)
    assert done.returncode == 0 and "Fixed 1 diagnostic" in done.stdout
    assert "--num_generations 2 --per_device_train_batch_size 2" in path.read_text()
