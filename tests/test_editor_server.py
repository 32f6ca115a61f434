"""`grpo-lint server` end to end: pygls's own language client drives the server as a subprocess over stdio, as an
editor does (initialize, open, edit, quick fixes, a premise file changed on disk, bad requests, shut down)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (extra 'server', in 'test')")

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

CONFIG = "num_generations: 4\nper_device_train_batch_size: 4\nuse_vllm: true\nvllm_device: cuda:1\ntemperature: 0.9\n"


class Editor:
    """A client that keeps the last diagnostics of each document and lets a test wait for the next ones."""

    def __init__(self) -> None:
        self.client = LanguageClient("test-editor", "1")
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.arrived: asyncio.Queue[str] = asyncio.Queue()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = list(params.diagnostics)
            self.arrived.put_nowait(params.uri)

    async def start(self, root: Path, options: dict | None = None) -> None:
        await self.client.start_io(sys.executable, "-m", "grpo_lint", "server", cwd=str(root))
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=from_fs_path(str(root)),
                initialization_options=options,
            )
        )
        self.client.initialized(types.InitializedParams())

    async def next(self, uri: str) -> list[types.Diagnostic]:
        while True:
            arrived = await asyncio.wait_for(self.arrived.get(), 20)
            if arrived == uri:
                return self.published[uri]

    def open(self, path: Path, text: str) -> str:
        uri = from_fs_path(str(path))
        language = {".yaml": "yaml", ".sh": "shellscript", ".py": "python"}.get(path.suffix, "plaintext")
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, language, 1, text))
        )
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(text)],
            )
        )

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def codes(diagnostics: list[types.Diagnostic]) -> list[tuple[str, int]]:
    return sorted((str(d.code), d.range.start.line) for d in diagnostics)


def run(scenario) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(asyncio.wait_for(scenario(), 120))


def test_diagnostics_follow_the_buffer_and_the_premises_on_disk(tmp_path):
    (tmp_path / "README.md").write_text("x\n")
    (tmp_path / "requirements.txt").write_text("trl==0.17.0\n")
    config = tmp_path / "grpo.yaml"
    config.write_text(CONFIG)

    async def scenario() -> None:
        editor = Editor()
        await editor.start(tmp_path, {"world_size": 4})
        uri = editor.open(config, CONFIG)
        assert codes(await editor.next(uri)) == []  # TRL 0.17.0 has vllm_device; 4 x 4 is whole groups of 4
        # an unsaved edit: a group of 3 in a generation batch of 16
        broken = CONFIG.replace("num_generations: 4", "num_generations: 3")
        broken = broken.replace("temperature: 0.9", "temperature: 0")
        editor.change(uri, broken, 2)
        found = await editor.next(uri)
        assert codes(found) == [("GRPO102", 0), ("GRPO201", 4)]
        greedy = next(d for d in found if d.code == "GRPO201")
        assert greedy.severity == types.DiagnosticSeverity.Error and greedy.source == "grpo-lint"
        assert (greedy.range.start.character, greedy.range.end.character) == (0, 11)  # `temperature`, as the CLI
        # the rule page on hover
        hover = await editor.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), greedy.range.start)
        )
        assert hover is not None and hover.contents.value.startswith("# GRPO201")
        # quick fixes: --fix's, the unsafe ones marked, and an inline suppression; apply the suppression
        batch = next(d for d in found if d.code == "GRPO102")
        actions = await editor.client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), batch.range, types.CodeActionContext(diagnostics=[batch])
            )
        )
        titles = [a.title for a in actions]
        assert any("unsafe" in t and "per_device_train_batch_size" in t for t in titles), titles
        ignore = next(a for a in actions if a.title == "Ignore GRPO102 on this line")
        (edit,) = ignore.edit.changes[uri]
        lines = broken.splitlines(keepends=True)
        lines[edit.range.start.line] = lines[edit.range.start.line].rstrip("\n") + edit.new_text + "\n"
        editor.change(uri, "".join(lines), 3)
        assert codes(await editor.next(uri)) == [("GRPO201", 4)]
        # a premise changes on disk: TRL 0.19.1 no longer has vllm_device
        editor.change(uri, CONFIG, 4)
        assert codes(await editor.next(uri)) == []
        (tmp_path / "requirements.txt").write_text("trl==0.19.1\n")
        editor.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(from_fs_path(str(tmp_path / "requirements.txt")), types.FileChangeType.Changed)]
            )
        )
        assert ("GRPO004", 3) in codes(await editor.next(uri))
        await editor.stop()

    run(scenario)


def test_the_world_size_of_the_launch_script_on_disk_judges_the_edited_config(tmp_path):
    (tmp_path / "README.md").write_text("x\n")
    (tmp_path / "requirements.txt").write_text("trl==0.19.1\n")
    config = tmp_path / "grpo.yaml"
    config.write_text("num_generations: 8\nper_device_train_batch_size: 4\n")
    (tmp_path / "run.sh").write_text("accelerate launch --num_processes 2 -m trl.scripts.grpo --config grpo.yaml\n")

    async def scenario() -> None:
        editor = Editor()
        await editor.start(tmp_path)
        uri = editor.open(config, config.read_text())
        assert codes(await editor.next(uri)) == []  # 2 processes x 4 = 8: one group of 8
        editor.change(uri, "num_generations: 16\nper_device_train_batch_size: 4\n", 2)
        (found,) = await editor.next(uri)
        assert found.code == "GRPO102" and "2 processes" in found.message
        await editor.stop()

    run(scenario)


def test_a_bad_request_or_an_unreadable_buffer_never_takes_the_server_down(tmp_path):
    (tmp_path / "README.md").write_text("x\n")
    config = tmp_path / "grpo.yaml"

    async def scenario() -> None:
        editor = Editor()
        await editor.start(tmp_path, {"target": "trl==0.19.1", "world_size": 1})
        uri = editor.open(config, "num_generations: [8\nper_device_train_batch_size: 4\n")
        (broken,) = await editor.next(uri)
        assert broken.code == "GRPO001" and broken.range.start.line >= 1  # a YAML error, with its position
        with pytest.raises(Exception, match=r"[Mm]ethod"):
            await editor.client.protocol.send_request_async("grpo/noSuchMethod", {})
        # bytes that are no JSON, and a request whose parameters are not the method's: written to the server as is
        stdin = editor.client._server.stdin  # (pygls's client checks what it sends itself)
        for body in (b"{not json", b'{"jsonrpc": "2.0", "id": 77, "method": "textDocument/codeAction", "params": 3}'):
            stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        await stdin.drain()
        editor.change(uri, "num_generations: 1\n", 2)
        assert codes(await editor.next(uri)) == [("GRPO101", 0)]  # still serving
        await editor.stop()

    run(scenario)


def test_settings_come_from_the_project_and_the_client_and_a_bad_one_is_said(tmp_path):
    from grpo_lint.editor.documents import SettingsError, settings

    (tmp_path / "pyproject.toml").write_text('[tool.grpo-lint]\nworld-size = 4\nignore = ["GRPO205"]\n')
    options = settings(tmp_path, {"target": "trl==0.19.1", "select": ["GRPO1"]})
    assert options.world_size == 4 and options.ignore == frozenset({"GRPO205"})
    assert options.select == frozenset({"GRPO1"}) and str(options.targets["trl"].version) == "0.19.1"
    assert settings(tmp_path, {"world_size": 8}).world_size == 8  # the client's wins
    with pytest.raises(SettingsError, match="target"):
        settings(tmp_path, {"target": "trl==banana"})
