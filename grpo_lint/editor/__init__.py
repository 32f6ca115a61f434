"""grpo-lint in the editor: a Language Server Protocol server (`grpo-lint server`, extra `server`).

`documents` turns a buffer into the diagnostics the command line gives for the same content (the repository's
premises read from disk); `server` speaks the protocol (pygls). Neither is imported by the command line.
"""
