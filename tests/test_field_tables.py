"""The field tables and the framework detection that reads their names."""

from __future__ import annotations

import pytest

from grpo_lint.frameworks.detect import detect
from grpo_lint.frameworks.swift.fields import swift_names, swift_table
from grpo_lint.sources.document import Document
from grpo_lint.sources.yaml_reader import read_text


def test_swift_names_are_the_tables_names():
    names = swift_names()
    assert names == frozenset(swift_table().specs)
    assert {"rlhf_type", "ENV", "train_type", "num_generations"} <= names  # an argument, a file key, a removed one


def _document(text: str) -> Document:
    document = read_text(text, "config.yaml")
    assert isinstance(document, Document)
    return document


@pytest.mark.parametrize(
    ("text", "framework"),
    [
        ("num_generations: 8\nper_device_train_batch_size: 8\nmax_completion_length: 256\n", "trl"),
        ("num_generations: 8\nper_device_train_batch_size: 8\nadapters: [out/checkpoint-50]\n", "swift"),
        ("num_generations: 8\n", "trl"),
    ],
)
def test_trl_and_swift_configs_are_told_apart_by_their_names(text, framework):
    assert detect(_document(text)).framework == framework
