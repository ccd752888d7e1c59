"""Bottom layer shared by every package: errors, the command runner, value checks.

Division of labor: `errors` defines the one error family and its exit codes;
`command` runs every external argv (tc, ip, nft, losetup, ...) and raises one
error type when it fails; `values` parses and bounds every user-given value,
so the command line and experiment files apply the same checks; `jsonfile`
reads a user's JSON file (and publishes schemas); `safefile` is the one safe
reader and writer of user paths and the check of root's private folders (the
tool runs as root where students log in); `text` makes hostile text safe for a
terminal, a CSV cell and a Markdown cell; `parser`, `interpreter` and `signals`
serve the command line (argument parsing, the interpreter check, SIGTERM as
an exit); `version` is the project's one version (pyproject.toml reads it,
--version prints it, results documents record it); `fields` is how a measured
point's keys are declared, once, by what produces them, and `settings` how a setting is (the
command line's axis and the point's field made from one declaration); `verdicts` is every
verdict word the tool prints (claims, calibrations, era readings, answers), once,
with its meaning.
Nothing here imports from another package of the project.
"""
