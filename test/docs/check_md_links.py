#!/usr/bin/env python3
"""Checks the links of every Markdown file of the repository.

  python3 test/docs/check_md_links.py [ROOT]      (ROOT: default the current directory)

Walks ROOT's *.md files (skipping build/, .git/, node_modules/ and every
directory named Inputs) and checks each Markdown link `[text](target)`,
image `![alt](target)` and reference definition `[label]: target` outside
code blocks and code spans:

  * http(s), ftp and mailto links are not checked;
  * a relative target (its `#fragment` and `?query` removed, %-escapes
    decoded) must name a file or directory that exists, resolved from the
    .md file's directory (a target starting with `/` from ROOT), and it must
    stay inside ROOT: a link out of the repository is an error even where
    the file exists;
  * a `#fragment` of a link into a .md file (or a pure `#anchor`, into the
    file itself) must be one of that file's heading anchors, made as GitHub
    makes them (lowercase; punctuation other than `-` and `_` removed; each
    space becomes `-`; a repeated heading gets `-1`, `-2`, ...), or an
    `id="..."` / `name="..."` anchor of an HTML tag in it.

Prints `FILE:LINE: link 'TARGET' -> REASON` for each bad link (FILE relative
to ROOT) and exits 1 if there is any, else prints a one-line summary and
exits 0. Standard library only.
"""
import os
import re
import sys
import urllib.parse

SKIP_DIRS = {"build", ".git", "node_modules", "Inputs"}
EXTERNAL = re.compile(r"^(https?|ftp|mailto):", re.IGNORECASE)

# [text](target "title") and ![alt](target); the text may hold one level of
# brackets ([`a[i]`](x)). The target is <...> or has no spaces; a title may follow.
INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"
    r"\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HTML_ANCHOR = re.compile(r"<[a-zA-Z][^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".md"):
                yield os.path.join(dirpath, name)


def mask_code_spans(line):
    """Replaces the inside of `code spans` by x's, so that what they hold is
    never read as a link (the span's place and length are kept)."""
    return CODE_SPAN.sub(lambda m: m.group(1) + "x" * len(m.group(2)) + m.group(1), line)


def text_lines(path):
    """(line number, text) of every line outside fenced code blocks, with
    code spans masked; and the file's raw lines."""
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    out, fence = [], None
    for i, line in enumerate(raw, 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        out.append((i, line))
    return out, raw


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)                        # HTML tags
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)                        # punctuation, but - and _
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    """Every anchor a link may name in the .md file at `path`."""
    if path in cache:
        return cache[path]
    lines, _ = text_lines(path)
    anchors, seen = set(), {}
    prev_text, prev_no = None, None

    def add(heading):
        s = slug(heading)
        n = seen.get(s, 0)
        seen[s] = n + 1
        anchors.add(s if n == 0 else f"{s}-{n}")

    for no, line in lines:
        for m in HTML_ANCHOR.finditer(line):
            anchors.add(m.group(1))
        h = ATX_HEADING.match(line)
        if h:
            add(h.group(2) or "")
            prev_text = None
            continue
        u = SETEXT_UNDERLINE.match(line)
        # A setext heading: a paragraph line right above === or ---.
        if u and prev_text is not None and prev_no == no - 1 and not re.match(r"^\s*([-*+>|]|\d+[.)]\s)", prev_text):
            add(prev_text)
            prev_text = None
            continue
        prev_text, prev_no = (line, no) if line.strip() else (None, None)
    cache[path] = anchors
    return anchors


def links_of(path):
    """(line number, target) of every link of the file."""
    lines, _ = text_lines(path)
    for no, line in lines:
        masked = mask_code_spans(line)
        d = REFERENCE_DEF.match(masked)
        if d:
            yield no, line[d.start(2):d.end(2)]
            continue
        for m in INLINE_LINK.finditer(masked):
            # The target from the unmasked line (a code span cannot hold a target).
            yield no, line[m.start(1):m.end(1)]


def check(root):
    root = os.path.realpath(root)
    problems, files, checked = [], 0, 0
    for md in markdown_files(root):
        files += 1
        rel_md = os.path.relpath(md, root)
        for no, target in links_of(md):
            target = target.strip()
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1].strip()
            if not target or EXTERNAL.match(target):
                continue
            checked += 1
            path_part, _, fragment = target.partition("#")
            path_part = urllib.parse.unquote(path_part.partition("?")[0])
            fragment = urllib.parse.unquote(fragment)

            def report(reason):
                problems.append(f"{rel_md}:{no}: link '{target}' -> {reason}")

            if path_part:
                base = root if path_part.startswith("/") else os.path.dirname(md)
                resolved = os.path.realpath(os.path.join(base, path_part.lstrip("/")))
                if resolved != root and not resolved.startswith(root + os.sep):
                    report("outside the repository")
                    continue
                if not os.path.exists(resolved):
                    report("missing path")
                    continue
            else:
                resolved = md
            if fragment and resolved.endswith(".md") and os.path.isfile(resolved):
                if fragment not in anchors_of(resolved):
                    report(f"no heading '#{fragment}' in {os.path.relpath(resolved, root)}")
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} bad link(s) in {files} Markdown files")
        return 1
    print(f"checked {checked} links in {files} Markdown files: all resolve")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit("usage: check_md_links.py [ROOT]")
    sys.exit(check(sys.argv[1] if len(sys.argv) == 2 else "."))
