"""Time from an edit to its diagnostics in the language server (a benchmark, not a timed test; README figures).

    pip install '.[server]'
    python benchmarks/editor_latency.py                 # open-r1's GRPO demo recipe, 40 edits
    python benchmarks/editor_latency.py --edits 100

A corpus snapshot is unpacked into a scratch folder, `grpo-lint server` is started on it over stdio by pygls's own
client, a config of the repository is opened, and `num_generations` is changed again and again: each edit's time is
from sending `textDocument/didChange` to receiving its `textDocument/publishDiagnostics` (the server's pause after
typing included). The first diagnostics after opening (the repository read once) are timed apart.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from corpus import REPOS
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

REPOSITORY = "huggingface+open-r1"
CONFIG = "recipes/Qwen2.5-1.5B-Instruct/grpo/config_demo.yaml"


async def measure(root: Path, edits: int) -> tuple[float, list[float]]:
    client = LanguageClient("latency", "1")
    arrived: asyncio.Queue[float] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        arrived.put_nowait(time.perf_counter())

    await client.start_io(sys.executable, "-m", "grpo_lint", "server", cwd=str(root))
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)))
    )
    client.initialized(types.InitializedParams())
    path = root / CONFIG
    uri = from_fs_path(str(path))
    text = path.read_text()
    start = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "yaml", 1, text)))
    first = await asyncio.wait_for(arrived.get(), 60) - start
    times = []
    for version in range(2, edits + 2):
        edited = text.replace("num_generations:", f"num_generations: {2 + version % 7} #", 1)
        start = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(edited)],
            )
        )
        times.append(await asyncio.wait_for(arrived.get(), 60) - start)
        await asyncio.sleep(0.05)  # a typist's pause: each edit is linted on its own
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return first, times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        with tarfile.open(REPOS / f"{REPOSITORY}.tar.gz") as tar:
            tar.extractall(scratch, filter="data")
        first, times = asyncio.run(measure(Path(scratch, REPOSITORY), args.edits))
    print(f"{REPOSITORY}/{CONFIG}")
    print(f"  open -> diagnostics (reads the repository)  {first * 1000:6.0f} ms")
    print(
        f"  edit -> diagnostics, {len(times)} edits           median {statistics.median(times) * 1000:5.0f} ms, "
        f"max {max(times) * 1000:5.0f} ms"
    )


if __name__ == "__main__":
    main()
