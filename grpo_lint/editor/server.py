"""`grpo-lint server`: the Language Server Protocol over stdio (pygls), for YAML, JSON, shell, Python and notebook
documents.

- Diagnostics of an open document, from its unsaved text, published on open and on change (after a short pause in
  typing), and again for every open document when a file changes on disk (a saved requirement, launch script or
  config: the premises are read from disk).
- Each diagnostic carries the rule's code (no link) and, on hover, the rule's `--explain` page.
- Quick fixes: the fixes `--fix` applies (the unsafe ones marked as such) and an inline suppression.
- Settings: `[tool.grpo-lint]` of the project, then the client's initialization options (`target`, `world_size`,
  `select`, `ignore`).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from grpo_lint import __version__
from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.editor.documents import Session, SettingsError, explain, settings, suppression
from grpo_lint.workspace.files import SUFFIXES

PAUSE = 0.03  # seconds of quiet after a change before the document is linted again
LANGUAGES = SUFFIXES
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class GrpoLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("grpo-lint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.session: Session | None = None
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.found: dict[str, list[tuple[types.Diagnostic, Diagnostic]]] = {}  # uri -> what was published


server = GrpoLintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: GrpoLintServer, params: types.InitializeParams) -> None:
    folder = params.root_uri or (params.workspace_folders[0].uri if params.workspace_folders else None)
    root = Path(to_fs_path(folder) or os.getcwd()) if folder else Path.cwd()
    os.chdir(root)  # paths are shown, and launch scripts resolved, as the command line does from the root
    try:
        options = settings(root, params.initialization_options)
    except SettingsError as exc:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"grpo-lint: {exc}"))
        options = settings(root, None)
    ls.session = Session(root, options)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: GrpoLintServer, params: types.DidOpenTextDocumentParams) -> None:
    publish(ls, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: GrpoLintServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    waiting = ls.pending.pop(uri, None)
    if waiting is not None:
        waiting.cancel()
    ls.pending[uri] = asyncio.ensure_future(_after_pause(ls, uri))


async def _after_pause(ls: GrpoLintServer, uri: str) -> None:
    await asyncio.sleep(PAUSE)
    ls.pending.pop(uri, None)
    publish(ls, uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: GrpoLintServer, params: types.DidSaveTextDocumentParams) -> None:
    refresh(ls)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
async def files_changed(ls: GrpoLintServer, params: types.DidChangeWatchedFilesParams) -> None:
    refresh(ls)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: GrpoLintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.found.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def refresh(ls: GrpoLintServer) -> None:
    """A file changed on disk: the repository is read again, and every open document linted again."""
    if ls.session is not None:
        ls.session.invalidate()
    for uri in list(ls.workspace.text_documents):
        publish(ls, uri)


def publish(ls: GrpoLintServer, uri: str) -> None:
    path = to_fs_path(uri)
    if ls.session is None or path is None or not path.lower().endswith(LANGUAGES):
        return
    document = ls.workspace.get_text_document(uri)
    text = document.source
    found = ls.session.lint(Path(path), text)
    lines = text.splitlines()
    pairs = [(to_lsp(d, lines), d) for d in found]
    ls.found[uri] = pairs
    ls.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=uri, version=document.version, diagnostics=[p for p, _ in pairs])
    )


def to_lsp(diagnostic: Diagnostic, lines: list[str]) -> types.Diagnostic:
    """A diagnostic as the protocol has it: 0-based lines and UTF-16 columns, the rule's code, its fix in the text."""
    span = diagnostic.span
    first, start, last, end = (1, 1, 1, 1) if span is None else (span.line, span.column, span.end_line, span.end_column)
    if diagnostic.cell is not None and diagnostic.cell[2]:
        _cell, start_line, file_line = diagnostic.cell  # a notebook: the line of the .ipynb that holds the source
        first, last = file_line + first - start_line, file_line + last - start_line
    message = diagnostic.message + (f"\nfix: {diagnostic.fix}" if diagnostic.fix else "")
    return types.Diagnostic(
        range=types.Range(_position(lines, first, start), _position(lines, last, end)),
        message=message,
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        source="grpo-lint",
    )


def _position(lines: list[str], line: int, column: int) -> types.Position:
    """1-based line and character column -> the protocol's 0-based line and UTF-16 offset."""
    index = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[index] if lines else ""
    before = text[: max(column - 1, 0)]
    return types.Position(line=index, character=len(before.encode("utf-16-le")) // 2)


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: GrpoLintServer, params: types.HoverParams) -> types.Hover | None:
    """The rule page of each diagnostic under the cursor."""
    at = params.position
    pages = []
    for shown, _ in ls.found.get(params.text_document.uri, []):
        start, end = shown.range.start, shown.range.end
        if (start.line, start.character) <= (at.line, at.character) <= (end.line, end.character):
            page = explain(str(shown.code))
            if page is not None and page not in pages:
                pages.append(page)
    if not pages:
        return None
    return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(pages)))


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
)
def code_actions(ls: GrpoLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The fixes of the diagnostics in the request (as `--fix` would apply them; unsafe ones say so), and an
    inline suppression of each rule."""
    from grpo_lint.edits import resolve

    uri = params.text_document.uri
    path = to_fs_path(uri)
    if path is None or ls.session is None:
        return []
    text = ls.workspace.get_text_document(uri).source
    lines = text.splitlines()
    asked = {(d.code, _key(d.range)) for d in params.context.diagnostics if d.source == "grpo-lint"}
    display = ls.session.display(Path(path))
    actions: list[types.CodeAction] = []
    for shown, diagnostic in ls.found.get(uri, []):
        if (shown.code, _key(shown.range)) not in asked:
            continue
        for index, fix in enumerate(resolve(diagnostic._replace(path=display), {display: text}).fixes):
            edits: dict[str, list[types.TextEdit]] = {}
            for edit in fix.edits:
                target = uri if edit.span.path in (None, display) else from_fs_path(os.path.abspath(edit.span.path))
                file_lines = lines if target == uri else _lines_of(edit.span.path)
                where = types.Range(
                    _position(file_lines, edit.span.line, edit.span.column),
                    _position(file_lines, edit.span.end_line, edit.span.end_column),
                )
                edits.setdefault(target or uri, []).append(types.TextEdit(where, edit.new))
            unsafe = fix.applicability == "unsafe"
            actions.append(
                types.CodeAction(
                    title=f"{fix.title} ({diagnostic.code}{', unsafe: it changes the run' if unsafe else ''})",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    edit=types.WorkspaceEdit(changes=edits),
                    is_preferred=index == 0 and not unsafe,
                )
            )
        place = suppression(Path(path), text, shown.range.start.line + 1, diagnostic.code)
        if place is not None:
            line, column, written = place
            at = types.Position(line=line, character=column)
            actions.append(
                types.CodeAction(
                    title=f"Ignore {diagnostic.code} {'in this file' if 'file-ignore' in written else 'on this line'}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[shown],
                    edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(types.Range(at, at), written)]}),
                )
            )
    return actions


def _key(where: types.Range) -> tuple[int, int, int, int]:
    return where.start.line, where.start.character, where.end.line, where.end.character


def _lines_of(path: str | None) -> list[str]:
    from grpo_lint.sources.reading import read_file

    data = read_file(path) if path else b""
    return data.decode("utf-8", "replace").splitlines() if isinstance(data, bytes) else []


def main() -> Any:
    """Serve over stdio until the client exits."""
    server.start_io()
