"""The migration tool: scan code, notebooks, configs, shell scripts and Markdown for the renamed names, and fix them.

Rules come from the alias table (`generator.migrate.rules`); each file type has a handler that returns hits with
offsets (`python`, `notebook`, `yaml_json`, `shell`, `markdown`); `files` reads (regular files only), decodes,
maps hits to findings and applies edits; `plan` writes all files or none (through `generator.writing`);
`requirements` is the version gate; `codes` is the registry of finding codes; `formats` writes JSON, GitHub
annotations and SARIF; `cli` is `scan|fix|rules|explain`.
"""
