"""Every experiment file is well-formed data whose sweep can be placed (no root needed)."""
import pytest

from netlab.runner_cli import check_sweep, experiment_files, load_experiment


@pytest.mark.parametrize("name", sorted(experiment_files()))
def test_experiment_file_loads_and_places(name):
    sweep, paper = load_experiment(experiment_files()[name])
    check_sweep(sweep)
    assert sweep.total_points() > 0
    assert paper.get("source") and paper.get("notes"), "an experiment names the paper it rebuilds"


def test_filecopy_experiments_record_their_disk():
    for name, path in experiment_files().items():
        sweep, _ = load_experiment(path)
        if sweep.workload == "filecopy":
            params = sweep.parameters()
            assert params["disk_profile"]["read_mbyte_s"] and "token_sizes" not in params
