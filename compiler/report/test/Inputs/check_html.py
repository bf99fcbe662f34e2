"""Checks a report directory: report.html is one self-contained page (no
scripts, no external resources) holding the tables and every plot inline,
and every SVG file is well-formed XML. Prints what it counted."""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

d = sys.argv[1]
svgs = sorted(glob.glob(os.path.join(d, "*.svg")))
for path in svgs:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", (path, root.tag)
html = open(os.path.join(d, "report.html"), encoding="utf-8").read()
assert html.startswith("<!DOCTYPE html>"), "not an HTML5 page"
assert "<script" not in html, "the page has a script"
for m in re.finditer(r'(?:src|href)\s*=\s*"([^"]*)"', html):
    raise AssertionError("the page refers to " + m.group(1))
urls = [u for u in re.findall(r'https?://[^"\s<]+', html) if u != "http://www.w3.org/2000/svg"]
assert not urls, urls
inline = html.count("<svg ")
assert inline == len(svgs), (inline, len(svgs))
# The inline SVGs are the files' SVGs.
for path in svgs:
    assert open(path, encoding="utf-8").read() in html, path
print("svg files:", len(svgs))
print("inline svg:", inline)
print("tables:", html.count("<table"))
