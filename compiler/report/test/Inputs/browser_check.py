"""Loads a report directory's report.html, and each of its SVG files, in
headless Chromium with the network off, and prints what the browser
rendered: headings, tables, and per chart its lines (colour, points) and
what the screenshot shows of them. Prints `error: ...` and exits 1 for
what a reader of the page would see as broken:
  - a JavaScript exception or console message, or a browser log entry of
    level warning or error (a failed load, a blocked resource);
  - a request for anything but the page itself (or a data: URL: the page is
    self-contained) or a failed load;
  - an SVG that the browser did not parse as SVG (a standalone file with an
    XML error, an inline one that became unknown HTML elements), has no
    size, or has text running out of its viewBox (cut off when shown);
  - an id used twice, or a url(#id) reference that resolves to nothing
    (the charts' clip paths);
  - a page wider than the window (a horizontal scroll bar);
  - a chart whose screenshot is blank, or lacks a line's colour.

The browser is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe) rather than --dump-dom and --screenshot: the
protocol reports each request, failed load and console message as an event
(with --enable-logging, failed loads and external requests show only as
VERBOSE1 lines among ~10,000), and it says when the page has loaded instead
of a guessed --virtual-time-budget.

Usage: browser_check.py REPORT_DIR PROFILE_DIR [--screenshot FILE]
PROFILE_DIR is created and removed; Chromium runs in its own process group,
which is killed at the end, so that no process outlives the check."""
import base64
import ctypes
import fcntl
import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

# The window: wide enough for the widest table of the test's reports; the
# charts wrap (two 700-pixel charts do not fit side by side).
WIDTH, HEIGHT = 1280, 900
# Generous: two cores shared with builds and other tests; a load takes ~1 s.
STEP_TIMEOUT = 120
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Browser:
    def __init__(self, profile):
        self.profile = profile
        shutil.rmtree(profile, ignore_errors=True)
        # Chromium's stderr (D-Bus complaints, mostly), shown if it fails.
        self.log = tempfile.TemporaryFile()
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        args = [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu",
            "--user-data-dir=" + profile, "--remote-debugging-pipe",
            "--no-first-run", "--disable-extensions", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--hide-scrollbars",
            "--window-size=%d,%d" % (WIDTH, HEIGHT),
            # Belt and braces with unshare -n below: no name resolves.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "about:blank",
        ]
        # A network namespace of its own (no interfaces, not even a working
        # loopback) where we may make one: as root, as in CI.
        if os.geteuid() == 0 and shutil.which("unshare"):
            args = ["unshare", "-n"] + args

        def child():
            # Chromium reads commands from fd 3 and writes replies to fd 4;
            # by way of fds above 4, in case the pipes are 3 and 4 already.
            r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)
            # Should this script be killed (a lit timeout), Chromium goes too:
            # it runs in a process group of its own, out of reach of lit's kill.
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

        self.proc = subprocess.Popen(
            args, preexec_fn=child, pass_fds=(3, 4), start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from chromium in %d s" % STEP_TIMEOUT)
            r, _, _ = select.select([self.from_chrome], [], [], left)
            if r:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise EOFError("chromium exited (status %s)" % self.proc.poll())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=True, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]
            self.events.append(m)

    def wait_event(self, method):
        deadline = time.monotonic() + STEP_TIMEOUT
        for m in self.events:
            if m.get("method") == method:
                return
        while True:
            m = self._read(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return

    def open(self, url):
        self.events = []
        r = self.call("Page.navigate", url=url)
        if r.get("errorText"):
            raise RuntimeError("%s: %s" % (url, r["errorText"]))
        self.wait_event("Page.loadEventFired")
        # Two animation frames: the page has been laid out and painted.
        self.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def close(self):
        # Asked to quit without waiting for a reply (it may never come if
        # Chromium hangs), then given 30 s.
        try:
            os.write(self.to_chrome, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        # Helpers (crashpad, zygotes) share the process group; none may stay.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)

    def stderr_tail(self):
        # Without the D-Bus complaints: headless Chromium finds no bus here.
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").splitlines(True)
        return "".join(l for l in lines if "dbus" not in l)[-3000:]


errors = []


def error(msg):
    errors.append(msg)
    print("error:", msg)


def check_events(b, page_url):
    """The console, exceptions, browser log and requests since the last open."""
    for m in b.events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            error("javascript: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif method == "Runtime.consoleAPICalled":
            error("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description"))) for a in p["args"])))
        elif method == "Log.entryAdded" and p["entry"]["level"] in ("warning", "error"):
            e = p["entry"]
            error("browser %s (%s): %s %s" % (e["level"], e["source"], e["text"], e.get("url", "")))
        elif method == "Network.requestWillBeSent":
            url = p["request"]["url"]
            if url != page_url and not url.startswith("data:"):
                error("request for %s (the page must be self-contained)" % url)
        elif method == "Network.loadingFailed":
            error("load failed: %s" % p.get("errorText"))


# What the browser made of the page: run in the page, returns JSON.
SUMMARY_JS = r"""(() => {
  const text = e => e.textContent.replace(/\s+/g, ' ').trim();
  const problems = [];
  const ids = {};
  for (const e of document.querySelectorAll('[id]')) ids[e.id] = (ids[e.id] || 0) + 1;
  for (const [id, n] of Object.entries(ids)) if (n > 1) problems.push(`id "${id}" is used ${n} times`);
  for (const e of document.querySelectorAll('[clip-path], [fill^="url("], [stroke^="url("]'))
    for (const a of ['clip-path', 'fill', 'stroke']) {
      const m = /^url\(#(.*)\)$/.exec(e.getAttribute(a) || '');
      if (m && !document.getElementById(m[1])) problems.push(`${a} refers to #${m[1]}, which does not exist`);
    }
  const de = document.documentElement;
  if (de.scrollWidth > de.clientWidth)
    problems.push(`the page is ${de.scrollWidth} px wide in a ${de.clientWidth} px window`);
  // Elements the HTML parser did not know: an inline SVG that lost its namespace.
  for (const e of document.body.querySelectorAll('*'))
    if (e instanceof HTMLUnknownElement) problems.push(`unknown element <${e.localName}>`);
  const charts = [...document.querySelectorAll('svg')].map(svg => {
    const r = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    const title = svg.querySelector('title');
    const c = {
      isSvg: svg instanceof SVGSVGElement,
      title: title ? text(title) : '',
      x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height,
      lines: [...svg.querySelectorAll('polyline')].map(p => {
        const b = p.getBoundingClientRect();
        return {points: p.points.numberOfItems, stroke: getComputedStyle(p).stroke,
                dashed: getComputedStyle(p).strokeDasharray !== 'none', drawn: p.getTotalLength() > 0,
                box: [b.left + scrollX, b.top + scrollY, b.width, b.height]};
      }),
      markers: svg.querySelectorAll('circle').length,
    };
    for (const t of svg.querySelectorAll('text')) {
      // The text's box in the SVG's own units, its transform applied.
      const b = t.getBBox(), s = svg.getScreenCTM().inverse().multiply(t.getScreenCTM());
      const pts = [[b.x, b.y], [b.x + b.width, b.y + b.height], [b.x + b.width, b.y], [b.x, b.y + b.height]]
        .map(([x, y]) => new DOMPoint(x, y).matrixTransform(s));
      const x0 = Math.min(...pts.map(p => p.x)), x1 = Math.max(...pts.map(p => p.x));
      const y0 = Math.min(...pts.map(p => p.y)), y1 = Math.max(...pts.map(p => p.y));
      if (x0 < vb.x - 0.5 || y0 < vb.y - 0.5 || x1 > vb.x + vb.width + 0.5 || y1 > vb.y + vb.height + 0.5)
        problems.push(`chart "${c.title}": text "${text(t)}" spans x ${x0.toFixed(0)}..${x1.toFixed(0)}, ` +
                      `y ${y0.toFixed(0)}..${y1.toFixed(0)}, outside its ${vb.width}x${vb.height} box`);
    }
    // Tick labels: the numbers right-aligned left of the plot (y) and
    // centred below it (x). Read back, they must step evenly (linear axis)
    // or by a constant factor (log axis), as the grid lines do.
    for (const [axis, anchor, pos] of [['y', 'end', 'y'], ['x', 'middle', 'x']]) {
      const ticks = [...svg.querySelectorAll(`text[text-anchor="${anchor}"]`)]
        .filter(t => /^-?[0-9][0-9,]*(\.[0-9]+)?$/.test(text(t)))
        .map(t => ({label: text(t), v: Number(text(t).replace(/,/g, '')), at: t[pos].baseVal[0].value}))
        .sort((a, b) => axis === 'y' ? b.at - a.at : a.at - b.at);
      if (ticks.length < 3) continue;
      const even = (f) => {
        const d = ticks.slice(1).map((t, i) => f(ticks[i].v, t.v));
        return d.every(x => Math.abs(x - d[0]) <= 1e-9 * Math.max(1, Math.abs(d[0])));
      };
      if (!even((a, b) => b - a) && !even((a, b) => b / a))
        problems.push(`chart "${c.title}": ${axis} tick labels ${ticks.map(t => t.label).join(' ')} do not step evenly`);
    }
    return c;
  });
  return JSON.stringify({
    title: document.title,
    headings: [...document.querySelectorAll('h1, h2, h3')].map(h => h.localName + ': ' + text(h)),
    tables: [...document.querySelectorAll('table')].map(t => ({
      cls: t.className, rows: t.tBodies[0] ? t.tBodies[0].rows.length : 0,
      cols: t.tHead ? t.tHead.rows[0].cells.length : 0})),
    charts, problems,
    width: de.scrollWidth, height: de.scrollHeight,
  });
})()"""


def rgb(css):
    """'rgb(31, 119, 180)' -> (31, 119, 180)"""
    return tuple(int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])


def check_pixels(shot, c):
    """What the screenshot shows of a chart: not blank, and each line's
    colour where the line is (its own box, so not its legend entry)."""
    def crop(x, y, w, h, pad=0):
        x0, y0 = max(0, round(x - pad)), max(0, round(y - pad))
        return shot[y0:round(y + h + pad), x0:round(x + w + pad)].reshape(-1, 3).astype(int)
    box = crop(c["x"], c["y"], c["width"], c["height"])
    inked = int((box != 255).any(axis=1).sum())
    colours = len(np.unique(box, axis=0))
    found = []
    for ln in c["lines"]:
        # Anti-aliased edges blend into the white; the middle of a 2 px line
        # keeps its colour. A one-point line has no length: its marker shows.
        n = int((np.abs(crop(*ln["box"], pad=4) - np.array(rgb(ln["stroke"]))).max(axis=1) <= 16).sum())
        found.append(n)
        if n < 10:
            error('chart "%s": the screenshot has %d pixels of the colour of its line %s where the line is'
                  % (c["title"], n, ln["stroke"]))
    if inked < 0.02 * len(box) or colours < 8:
        error('chart "%s": the screenshot is blank (%d of %d pixels not white, %d colours)'
              % (c["title"], inked, len(box), colours))
    return inked / len(box), colours, found


def main():
    report, profile = sys.argv[1], sys.argv[2]
    shot_path = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    report = os.path.abspath(report)
    page = "file://" + os.path.join(report, "report.html")
    b = Browser(os.path.abspath(profile))
    try:
        target = b.call("Target.createTarget", session=False, url="about:blank")["targetId"]
        b.session = b.call("Target.attachToTarget", session=False, targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.call(domain + ".enable")
        b.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)

        b.open(page)
        s = json.loads(b.eval(SUMMARY_JS))
        check_events(b, page)
        for p in s["problems"]:
            error(p)
        # The whole page, also below the window.
        png = b.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                     clip={"x": 0, "y": 0, "width": s["width"], "height": s["height"], "scale": 1})["data"]
        img = Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB")
        if shot_path:
            img.save(shot_path)
        shot = np.asarray(img)
        print("title:", s["title"])
        for h in s["headings"]:
            print(h)
        for t in s["tables"]:
            print("table %s: %d rows, %d columns" % (t["cls"], t["rows"], t["cols"]))
        print("charts:", len(s["charts"]))
        for c in s["charts"]:
            if not c["isSvg"]:
                error('chart "%s" is not an SVG element' % c["title"])
            if c["width"] < 100 or c["height"] < 100:
                error('chart "%s" is %dx%d px' % (c["title"], c["width"], c["height"]))
            ink, colours, found = check_pixels(shot, c)
            print("chart: %s (%dx%d px, %d%% inked, %d colours)" % (c["title"], c["width"], c["height"],
                                                                  round(100 * ink), colours))
            for ln, n in zip(c["lines"], found):
                print("  line %s%s: %d points, %d pixels%s" % (ln["stroke"], " dashed" if ln["dashed"] else "",
                                                             ln["points"], n, "" if ln["drawn"] else " (no length)"))
            print("  markers:", c["markers"])

        # Each SVG file on its own, as a browser opens a linked plot: parsed
        # as XML, so a markup error shows here and not in the inline copy.
        svgs = sorted(f for f in os.listdir(report) if f.endswith(".svg"))
        for f in svgs:
            url = "file://" + os.path.join(report, f)
            b.open(url)
            r = json.loads(b.eval("""JSON.stringify({
              svg: document.documentElement instanceof SVGSVGElement,
              parseError: document.getElementsByTagName('parsererror').length > 0,
              lines: document.querySelectorAll('polyline').length})"""))
            check_events(b, url)
            if not r["svg"] or r["parseError"]:
                error("%s: the browser did not parse it as SVG" % f)
            print("svg file %s: %d lines" % (f, r["lines"]))
    except BaseException:
        b.close()
        sys.stderr.write("chromium's stderr, the end:\n" + b.stderr_tail())
        raise
    b.close()
    if errors:
        print("%d errors" % len(errors))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    # SIGTERM cleans up as an exception does (kills Chromium, removes the profile).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    main()
