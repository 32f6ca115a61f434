"""The README's Neovim configuration, tried in Neovim: a headless Neovim runs the README's `init.lua` block (the
command pointed at this interpreter), opens a config, and reports what its own LSP client received from
`grpo-lint server`: diagnostics, a hover, a quick fix applied to the buffer. Skipped where `nvim` is not installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (extra 'server', in 'test')")
NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim is not installed")

README = Path(__file__).resolve().parent.parent / "README.md"

# What the test asks Neovim once the file is open: every diagnostic, the hover on line 5, the quick fixes for
# line 4 (the one that renames the key applied), then the buffer's line 4.
CHECK = """
vim.cmd("edit grpo.yaml")
vim.wait(20000, function() return #vim.diagnostic.get(0) >= 2 end, 50)
local report = { diagnostics = {}, actions = {} }
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(report.diagnostics, { line = d.lnum + 1, code = tostring(d.code) })
end
local uri = vim.uri_from_bufnr(0)
local hover = vim.lsp.buf_request_sync(0, "textDocument/hover",
  { textDocument = { uri = uri }, position = { line = 4, character = 2 } }, 20000)
for _, answer in pairs(hover or {}) do
  if answer.result then report.hover = answer.result.contents.value end
end
local actions = vim.lsp.buf_request_sync(0, "textDocument/codeAction", {
  textDocument = { uri = uri },
  range = { start = { line = 3, character = 0 }, ["end"] = { line = 3, character = 14 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(0, 3) },
}, 20000)
for _, answer in pairs(actions or {}) do
  for _, action in ipairs(answer.result or {}) do
    table.insert(report.actions, action.title)
    if action.edit and action.title:find("num_generations", 1, true) then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
    end
  end
end
report.line4 = vim.api.nvim_buf_get_lines(0, 3, 4, false)[1]
io.stdout:write("REPORT " .. vim.fn.json_encode(report) .. "\\n")
vim.cmd("qa!")
"""


def _readme_init_lua() -> str:
    """The README's Neovim 0.7-0.10 block."""
    text = README.read_text()
    section = text[text.index("Neovim 0.7 to 0.10") :]
    return re.search(r"```lua\n(.*?)```", section, re.S).group(1)


def test_the_readme_neovim_configuration_gets_diagnostics_hover_and_a_quick_fix(tmp_path):
    init = _readme_init_lua()
    assert '{ "grpo-lint", "server" }' in init
    command = "{ " + ", ".join(json.dumps(word) for word in (sys.executable, "-m", "grpo_lint", "server")) + " }"
    (tmp_path / "init.lua").write_text(init.replace('{ "grpo-lint", "server" }', command))
    (tmp_path / "check.lua").write_text(CHECK)
    (tmp_path / "requirements.txt").write_text("trl==0.19.1\n")
    (tmp_path / "grpo.yaml").write_text(
        "model_name_or_path: Qwen/Qwen2.5-0.5B\nper_device_train_batch_size: 4\ngradient_accumulation_steps: 1\n"
        "num_generation: 8\ntemperature: 0.0\n"
    )
    home = str(tmp_path)
    done = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(tmp_path / "init.lua"), "-c", "luafile check.lua"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": home, "XDG_DATA_HOME": home},
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("REPORT ")), None)
    assert line is not None, done.stdout + done.stderr
    report = json.loads(line.removeprefix("REPORT "))
    assert {(d["line"], d["code"]) for d in report["diagnostics"]} >= {(4, "GRPO002"), (5, "GRPO201")}
    assert report["hover"].startswith("# GRPO201 greedy-temperature")
    assert "rename `num_generation` to `num_generations` (GRPO002)" in report["actions"]
    assert report["line4"] == "num_generations: 8"  # the quick fix, applied by Neovim to its buffer
