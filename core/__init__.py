"""Bottom layer shared by every package: errors, the command runner, value checks.

Division of labor: `errors` defines the one error family and its exit codes;
`command` runs every external argv (tc, ip, nft, losetup, ...) and raises one
error type when it fails; `values` parses and bounds every user-given value,
so the command line and experiment files apply the same checks.
Nothing here imports from another package of the project.
"""
