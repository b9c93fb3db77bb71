"""The migration tool: scan code, notebooks, configs, shell scripts and Markdown for the renamed names, and fix them.

Rules come from the alias table (`generator.migrate.rules`); each file type has a handler that returns hits with
offsets (`python`, `notebook`, `yaml_json`, `shell`, `markdown`); `files` decodes, maps hits to findings, applies
edits and writes atomically; `requirements` is the version gate; `codes` is the registry of finding codes;
`formats` writes JSON, GitHub annotations and SARIF; `cli` is `scan|fix|rules|explain`; and
`adoption` runs the scanner over released libraries for the adoption report.
"""
