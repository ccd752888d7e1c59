"""A configuration keeps one colour in every plot, file, report and version (issue 44 item 4c):
its name hashed into a fixed palette, collisions resolved by the names, never by a file's order."""
import json
import random
import shutil
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jsonschema")

from beowulf_netlab import commands  # noqa: E402
from beowulf_netlab.judge.plot import PALETTE, _home, configuration_colours  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CONFIGS = ["single-net @10Mb", "bonded-dual-net x2 @10Mb", "switched-mesh (local-wire) @10Mb",
           "switched-mesh (remote-wire) @10Mb", "routed-mesh (local-wire) @10Mb", "routed-mesh (remote-wire) @10Mb",
           "bonded-switched-mesh (local-wire) @10Mb", "bonded-switched-mesh (remote-wire) @10Mb"]


def test_pinned_across_versions():
    """The colours people have seen: a change of palette or hash would repaint every stored figure."""
    got = configuration_colours(["single-net @10Mb", "bonded-dual-net x2 @10Mb"])
    assert got == {"single-net @10Mb": "#9467bd", "bonded-dual-net x2 @10Mb": "#ff7f0e"}


def test_order_never_matters_and_a_figure_has_no_two_alike():
    want = configuration_colours(CONFIGS)
    assert len(set(want.values())) == len(CONFIGS)
    for seed in range(5):
        shuffled = CONFIGS[:]
        random.Random(seed).shuffle(shuffled)
        assert configuration_colours(shuffled) == want
    many = [f"single-net P={p} @10Mb" for p in range(1, 2 * len(PALETTE))]
    got = configuration_colours(many)
    assert len(set(got[c] for c in many[:len(PALETTE)])) <= len(PALETTE) and set(got.values()) == set(PALETTE)


def test_alone_or_among_others_a_configuration_keeps_its_colour():
    """Among configurations whose home slots differ, each is drawn in the colour it has alone:
    another figure's other curves never repaint it; only a neighbour on its slot moves one."""
    homes: dict[int, str] = {}
    for c in CONFIGS:
        homes.setdefault(_home(c), c)
    apart = list(homes.values())
    together = configuration_colours(apart)
    assert all(configuration_colours([c])[c] == together[c] == PALETTE[_home(c)] for c in apart)
    assert len(apart) >= 4


def _pixels(png: Path) -> set[tuple[int, int, int]]:
    from PIL import Image
    return set(Image.open(png).convert("RGB").getdata())


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def test_the_same_colour_in_two_files_plots_and_the_report(tmp_path, capsys):
    """As a person sees it: the fig 3 of a quick run and of another run whose points come in the
    reverse order draw bonded-dual-net in the same colour, and the report's figure does too."""
    quick = json.loads((FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json").read_text())
    reordered = {**quick, "points": quick["points"][::-1]}
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "hpdc96-fig3-topologies.json").write_text(json.dumps(reordered))
    colour = _rgb(configuration_colours(CONFIGS[1:])["bonded-dual-net x2 @10Mb"])
    for doc in (FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json", tmp_path / "b" / "hpdc96-fig3-topologies.json"):
        png = tmp_path / f"{doc.parent.name}.png"
        assert commands.main(["plot", str(doc), "--png", str(png)]) == 0
        assert colour in _pixels(png)
    shutil.copy(FIXTURES / "reproduction" / "hpdc96-fig3-topologies.json", tmp_path / "r.json")
    assert commands.main(["report", str(tmp_path / "r.json"), "--out", str(tmp_path / "report")]) == 0
    (figure,) = (tmp_path / "report" / "figures").glob("hpdc96-fig3-topologies*.png")
    assert colour in _pixels(figure)
    capsys.readouterr()
