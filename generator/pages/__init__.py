"""Pages: pure functions from the table and the measured data to what the templates show, and the rendering.

`render` writes `docs/generated/`; `views`, `measured`, `errors`, `adoption` and `timeline_svg` shape the data;
`outputs` publishes the machine-readable files; `hook` is the MkDocs hook that runs both on every build.
"""
