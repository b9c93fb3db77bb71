"""The migration tool: scan code, notebooks, configs, shell scripts and Markdown for the renamed names, and fix them.

`rules` derives the rules from the alias table; a handler per file type (`python`, `notebook`, `yaml_json`, `shell`,
`markdown`) returns hits with offsets; `files` reads, decodes, maps hits to findings and applies edits; `plan` writes
all files or none; `requirements` is the version gate; `codes`, `formats` and `cli` report (`scan|fix|rules|explain`).
"""
