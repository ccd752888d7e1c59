"""The report page in a real browser: headless Chromium (Debian's chromium-headless-shell, which
./setup.sh installs) renders report.html, built from the stored documents of a real quick run
(tests/fixtures/reproduction/), at a phone's 420 px and a desktop's 1400 px. It fails on
horizontal page overflow (tables may scroll only inside their own wrapper), a missing image or a
console error.

The page itself has no script: the test loads a copy with a small probe script injected, which
measures after the load event and writes its findings into the DOM that --dump-dom prints.

The screenshots in docs/ come from the same build:
    /usr/bin/python3 tests/unit/test_report_page.py docs/
writes docs/report-420.png and docs/report-1400.png.
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:          # run as a script (the screenshots)
    sys.path.insert(0, str(ROOT))

pytest.importorskip("jsonschema")
pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

from beowulf_netlab.judge.report import build  # noqa: E402
from beowulf_netlab.run.results import load  # noqa: E402

STORED = sorted((ROOT / "tests" / "fixtures" / "reproduction").glob("*.json"))
BROWSER = next((b for b in (shutil.which("chromium-headless-shell"), "/usr/bin/chromium-headless-shell",
                            "/usr/lib/chromium/chromium-headless-shell") if b and Path(b).exists()), None)
WIDTHS = (420, 1400)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-extensions", "--disable-background-networking", "--mute-audio"]

# Runs before the page's own content: records every error event (a resource that failed to load
# included: they do not bubble, so it listens in the capture phase) and every console error or
# warning; after the load event it measures and writes JSON into <pre id="netlab-probe" hidden>.
PROBE = """<script>
(function () {
  var found = [];
  window.addEventListener('error', function (e) {
    var t = e.target;
    found.push(t && t !== window && t.tagName ? 'failed to load <' + t.tagName.toLowerCase() + '> '
               + (t.alt || '') : 'error: ' + e.message);
  }, true);
  ['error', 'warn'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      found.push('console.' + level + ': ' + Array.prototype.join.call(arguments, ' '));
      return original.apply(console, arguments);
    };
  });
  function clipped(el) {            /* inside a box that scrolls or clips: not page overflow */
    for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  }
  window.addEventListener('load', function () {
    var width = window.innerWidth;
    var over = [];
    document.querySelectorAll('body *').forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width && r.right > width + 1 && !clipped(el) && over.length < 8) {
        over.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                  (el.className ? '.' + String(el.className).replace(/ /g, '.') : '') +
                  ' right=' + Math.round(r.right));
      }
    });
    var images = Array.prototype.slice.call(document.images);
    var out = document.createElement('pre');
    out.id = 'netlab-probe';
    out.hidden = true;
    out.textContent = JSON.stringify({
      inner: width, scroll: document.documentElement.scrollWidth, over: over,
      images: images.length,
      broken: images.filter(function (i) { return !(i.complete && i.naturalWidth > 0); })
                    .map(function (i) { return i.alt || i.src.slice(0, 40); }),
      shown: images.filter(function (i) { return i.getBoundingClientRect().width > 0; }).length,
      errors: found,
      viewport: !!document.querySelector('meta[name=viewport]'),
      fontPx: parseFloat(getComputedStyle(document.body).fontSize)
    });
    document.body.appendChild(out);
  });
})();
</script>"""


def probe(page: Path, width: int, tmp: Path) -> tuple[dict, list[str]]:
    """Load a probed copy of the page at this window width: the probe's findings and the
    console lines Chromium logged."""
    text = page.read_text()
    probed = tmp / f"probed-{width}.html"
    probed.write_text(re.sub(r"<head>", "<head>" + PROBE, text, count=1))
    r = subprocess.run([BROWSER, *FLAGS, f"--window-size={width},900", "--virtual-time-budget=10000",
                        "--enable-logging=stderr", "--v=0", "--dump-dom", probed.as_uri()],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="netlab-probe" hidden="">(.*?)</pre>', r.stdout, re.S)
    assert m, f"the probe did not report (exit {r.returncode}):\n{r.stderr[-3000:]}"
    console = [line for line in r.stderr.splitlines() if "CONSOLE" in line]
    return json.loads(html.unescape(m.group(1))), console


def screenshot(page: Path, width: int, path: Path, height: int = 2400) -> None:
    subprocess.run([BROWSER, *FLAGS, f"--window-size={width},{height}", "--virtual-time-budget=10000",
                    f"--screenshot={path}", page.as_uri()], capture_output=True, text=True, timeout=120,
                   check=True)


def report(out: Path) -> Path:
    docs = {load(p)["name"]: load(p) for p in STORED}
    return build(docs, out, quick=True)


needs_browser = pytest.mark.skipif(BROWSER is None, reason="chromium-headless-shell is not installed "
                                   "(Debian: apt-get install chromium-headless-shell; ./setup.sh installs it)")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    if not STORED:
        pytest.skip("no stored reproduction documents")
    return report(tmp_path_factory.mktemp("report"))


@needs_browser
@pytest.mark.parametrize("width", WIDTHS)
def test_page_renders_in_a_real_browser(page, width, tmp_path):
    found, console = probe(page, width, tmp_path)
    assert found["viewport"], "no <meta name=viewport>: phones would render it at 980 px and shrink it"
    assert found["inner"] == width
    assert found["scroll"] <= found["inner"], \
        f"the page overflows sideways at {width} px ({found['scroll']} px wide): {found['over']}"
    assert not found["over"], f"elements reach past the {width} px screen outside any scroll box: {found['over']}"
    figures = len(list((page.parent / "figures").glob("*.png")))
    assert found["images"] == figures and found["shown"] == figures
    assert not found["broken"], f"images that did not load: {found['broken']}"
    assert not found["errors"], f"errors: {found['errors']}"
    assert not console, "console messages:\n" + "\n".join(console)
    assert found["fontPx"] >= 14


@needs_browser
def test_page_screenshots(page, tmp_path):
    """Both widths render to a picture (what docs/report-*.png show)."""
    for width in WIDTHS:
        shot = tmp_path / f"report-{width}.png"
        screenshot(page, width, shot, height=900)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20000


def main(argv: list[str]) -> int:
    """Build the report from the stored documents and write report-420.png and report-1400.png
    into the directory given (docs/)."""
    if BROWSER is None:
        print("chromium-headless-shell is not installed", file=sys.stderr)
        return 2
    dest = Path(argv[0] if argv else ROOT / "docs")
    dest.mkdir(parents=True, exist_ok=True)
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        page = report(Path(tmp) / "report")
        for width in WIDTHS:
            screenshot(page, width, dest / f"report-{width}.png")
            print(dest / f"report-{width}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
