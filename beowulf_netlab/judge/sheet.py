"""An exercise's sheet as a page to hand out or project: its README.md rendered to one
self-contained HTML file (no solutions, nothing fetched), with room to write each answer.

The sheets use a small part of Markdown (headings, paragraphs, numbered and bulleted lists with
one level of nesting, fenced code, `code` and **bold**); that part is rendered here rather than
by a Markdown package the testbed does not otherwise need. Every character of the sheet is
escaped before any markup is added, so a sheet cannot carry HTML of its own.
"""
from __future__ import annotations

import html
import re

_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_ORDERED = re.compile(r"^(\d+)\. (.*)$")


def inline(text: str) -> str:
    """One line of sheet text as HTML: escaped, then `code` and **bold**."""
    out, last = [], 0
    for m in _INLINE_CODE.finditer(text):
        out.append(_BOLD.sub(r"<strong>\1</strong>", html.escape(text[last:m.start()])))
        out.append(f"<code>{html.escape(m.group(1))}</code>")
        last = m.end()
    out.append(_BOLD.sub(r"<strong>\1</strong>", html.escape(text[last:])))
    return "".join(out)


def to_html(markdown: str) -> str:
    """The sheet's body as HTML (see the module docstring for the Markdown it reads)."""
    out: list[str] = []
    para: list[str] = []
    lists: list[str] = []          # open list tags, outermost first
    item: list[str] = []           # the open item's text lines
    fence: list[str] | None = None
    section = ""

    def flush_item() -> None:
        if item:
            out.append(f"<li>{inline(' '.join(item))}")
            item.clear()

    def close_lists(depth: int = 0) -> None:
        flush_item()
        while len(lists) > depth:
            out.append(f"</li></{lists.pop()}>")

    def flush_para() -> None:
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()

    for line in markdown.splitlines():
        if fence is not None:
            if line.startswith("```"):
                out.append(f"<pre><code>{html.escape(chr(10).join(fence))}</code></pre>")
                fence = None
            else:
                fence.append(line)
            continue
        if line.startswith("```"):
            flush_para()
            close_lists()
            fence = []
            continue
        stripped = line.strip()
        if not stripped:
            flush_para()
            flush_item()
            continue
        if line.startswith("#"):
            flush_para()
            close_lists()
            level = len(line) - len(line.lstrip("#"))
            title = line.lstrip("#").strip()
            if level == 2:
                if section:
                    out.append("</section>")
                section = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
                out.append(f'<section class="{section}">')
            out.append(f"<h{min(level, 3)}>{inline(title)}</h{min(level, 3)}>")
            continue
        ordered = _ORDERED.match(line)
        if ordered or line.startswith("- "):
            flush_para()
            tag = "ol" if ordered else "ul"
            if lists and lists[0] != tag:
                close_lists()
            if not lists:   # a task list broken by a code block goes on from its own number
                out.append(f'<ol start="{ordered.group(1)}">' if ordered else "<ul>")
                lists.append(tag)
            else:
                close_lists(1)
                out.append("</li>")
            item.append(ordered.group(2) if ordered else line[2:])
            continue
        if line.startswith("  - ") and lists:
            flush_item()
            if len(lists) == 1:
                out.append('<ul class="choices">')
                lists.append("ul")
            else:
                out.append("</li>")
            item.append(line[4:])
            continue
        if line.startswith("   ") and (item or lists):
            item.append(stripped)     # an item's continuation line
            continue
        close_lists()
        para.append(stripped)
    flush_para()
    close_lists()
    if section:
        out.append("</section>")
    return "\n".join(out)


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body{{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:52rem;margin:0 auto;
  padding:1rem;color:#1f2328;background:#fff}}
h1{{font-size:1.6rem;margin:.2rem 0 .6rem}} h2{{font-size:1.25rem;margin-top:1.6rem;border-bottom:1px solid #d0d7de}}
pre{{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;border-radius:6px;font-size:.85rem}}
code{{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}}
p code,li code{{background:#f6f8fa;padding:0 .2em;border-radius:4px;overflow-wrap:anywhere}}
section.questions > ul > li{{margin:.9rem 0}}
section.questions > ul > li::after{{content:"answer:";display:block;margin-top:.4rem;padding-bottom:1.4rem;
  border-bottom:1px solid #8c959f;color:#57606a;font-size:.8rem}}
ul.choices{{list-style:none;padding-left:1rem}}
ul.choices li::before{{content:"\\2610  "}}
footer{{margin-top:2rem;color:#57606a;font-size:.8rem}}
@media print{{body{{font-size:11pt;max-width:none}} pre{{white-space:pre-wrap}} a{{color:inherit}}
  section.questions > ul > li{{break-inside:avoid}}}}
</style>
</head>
<body>
{body}
<footer>Beowulf Netlab exercise {name}: <code>python3 emulate.py exercise show {name} --html FILE</code></footer>
</body>
</html>
"""


def page(name: str, markdown: str) -> str:
    """The whole handout page of exercise `name` from its sheet."""
    first = next((ln.lstrip("#").strip() for ln in markdown.splitlines() if ln.startswith("# ")), name)
    return PAGE.format(title=html.escape(first), body=to_html(markdown), name=html.escape(name))
